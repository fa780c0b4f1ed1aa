import * as DialogPrimitive from '@radix-ui/react-dialog'
import { Link, Outlet, useRouterState } from '@tanstack/react-router'
import { useState } from 'react'
import { useMe, type Me } from '../auth/session.ts'
import { Loading } from '../components/Spinner.tsx'
import { RecoveryCodesProvider, TwoFactorGate, useWorkspaceGate } from '../features/security/index.ts'
import { cn } from '../lib/cn.ts'
import { Logo } from './Logo.tsx'
import { NAV } from './nav.ts'
import { NoWorkspace } from './NoWorkspace.tsx'
import { UserMenu } from './UserMenu.tsx'
import { WorkspaceSwitcher } from './WorkspaceSwitcher.tsx'

/** The signed-in app: sidebar nav on wide screens, a menu button and drawer on a phone. */
export function AppShell() {
  const me = useMe()
  const gate = useWorkspaceGate(me)
  const [menuOpen, setMenuOpen] = useState(false)
  // Close the phone drawer whenever the page changes.
  const pathname = useRouterState({ select: (state) => state.location.pathname })
  const [lastPath, setLastPath] = useState(pathname)
  if (pathname !== lastPath) {
    setLastPath(pathname)
    setMenuOpen(false)
  }

  return (
    <div className="min-h-screen lg:flex">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2"
      >
        Skip to content
      </a>

      {/* Wide screens: a sidebar. */}
      {/* Sticky and as tall as the window: it stays beside a long page as it scrolls. */}
      <aside className="sticky top-0 hidden h-screen w-64 shrink-0 flex-col overflow-y-auto border-r border-line bg-white lg:flex">
        <div className="px-4 pb-2 pt-4">
          <Logo />
        </div>
        <div className="px-3 pb-3">
          <WorkspaceSwitcher />
        </div>
        <Navigation abilities={me.abilities} />
      </aside>

      {/* Phones and tablets: a top bar with a menu button that opens the same navigation. */}
      <header className="sticky top-0 z-30 flex items-center justify-between gap-2 border-b border-line bg-white px-3 py-2 lg:hidden">
        <DialogPrimitive.Root open={menuOpen} onOpenChange={setMenuOpen}>
          <DialogPrimitive.Trigger className="inline-flex h-10 items-center gap-2 rounded-md px-2 text-sm font-medium hover:bg-gray-100" aria-label="Open menu">
            <svg viewBox="0 0 20 20" className="size-5" fill="currentColor" aria-hidden="true">
              <path d="M3 5h14v2H3zM3 9h14v2H3zM3 13h14v2H3z" />
            </svg>
            Menu
          </DialogPrimitive.Trigger>
          <DialogPrimitive.Portal>
            <DialogPrimitive.Overlay className="fixed inset-0 z-40 bg-gray-900/50" />
            <DialogPrimitive.Content
              className="fixed inset-y-0 left-0 z-50 flex w-72 max-w-[85vw] flex-col overflow-y-auto bg-white shadow-xl focus:outline-none"
              aria-describedby={undefined}
            >
              <div className="flex items-center justify-between px-4 pb-2 pt-4">
                <DialogPrimitive.Title asChild>
                  <span>
                    <Logo />
                    <span className="sr-only"> menu</span>
                  </span>
                </DialogPrimitive.Title>
                <DialogPrimitive.Close className="rounded p-2 text-muted hover:bg-gray-100" aria-label="Close menu">
                  ✕
                </DialogPrimitive.Close>
              </div>
              <div className="px-3 pb-3">
                <WorkspaceSwitcher />
              </div>
              <Navigation abilities={me.abilities} />
            </DialogPrimitive.Content>
          </DialogPrimitive.Portal>
        </DialogPrimitive.Root>
        <Logo className="sm:hidden" />
        <UserMenu />
      </header>

      <div className="flex min-w-0 flex-1 flex-col">
        <div className="hidden items-center justify-end border-b border-line bg-white px-6 py-2 lg:flex">
          <UserMenu />
        </div>
        <main id="main" tabIndex={-1} className="mx-auto w-full max-w-6xl flex-1 px-4 py-6 focus:outline-none sm:px-6 lg:py-8">
          <RecoveryCodesProvider>
            {!me.workspace ? (
              <NoWorkspace />
            ) : isAccountPage(pathname) || gate.state === 'open' ? (
              <Outlet />
            ) : gate.state === 'checking' ? (
              <Loading />
            ) : (
              <TwoFactorGate workspace={me.workspace.name} status={gate.status} />
            )}
          </RecoveryCodesProvider>
        </main>
      </div>
    </div>
  )
}

/** The person's own account pages open even where the workspace asks for a second step first. */
const isAccountPage = (pathname: string): boolean => /^\/(app\/)?account(\/|$)/.test(pathname)

/** The links the user may follow: a page they may not use is not offered. */
function Navigation({ abilities }: { abilities: Me['abilities'] }) {
  const sections = NAV.map((section) => ({ ...section, items: section.items.filter((item) => !item.ability || abilities[item.ability]) })).filter(
    (section) => section.items.length > 0,
  )
  return (
    <nav aria-label="Main" className="flex-1 px-3 pb-6">
      {sections.map((section, index) => (
        <div key={section.label ?? index} className="mt-3">
          {section.label && <p className="px-2 pb-1 text-xs font-semibold uppercase tracking-wide text-muted">{section.label}</p>}
          <ul className="flex flex-col gap-0.5">
            {section.items.map((item) => (
              <li key={item.to}>
                <Link
                  to={item.to}
                  activeOptions={{ exact: item.exact ?? false }}
                  className={cn('block rounded-md px-2 py-2 text-sm font-medium text-ink hover:bg-gray-100')}
                  activeProps={{ className: 'bg-brand-50 text-brand-800', 'aria-current': 'page' }}
                >
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </nav>
  )
}
