import * as Menu from '@radix-ui/react-dropdown-menu'
import { useNavigate } from '@tanstack/react-router'
import { useMe } from '../auth/session.ts'
import { useSignOut } from '../auth/use-sign-out.ts'
import { menuContentClass, menuItemClass } from './menu-styles.ts'

/** The user's name with Account, Security and Sign out. */
export function UserMenu() {
  const me = useMe()
  const navigate = useNavigate()
  const signOut = useSignOut()
  return (
    <Menu.Root>
      <Menu.Trigger className="inline-flex h-10 max-w-56 items-center gap-2 rounded-md px-2 text-sm font-medium hover:bg-gray-100">
        <span className="flex size-7 items-center justify-center rounded-full bg-brand-100 text-xs font-bold text-brand-800" aria-hidden="true">
          {initials(me.user.name || me.user.email)}
        </span>
        <span className="truncate">{me.user.name || me.user.email}</span>
        <span className="sr-only">: account menu</span>
      </Menu.Trigger>
      <Menu.Portal>
        <Menu.Content align="end" sideOffset={4} className={menuContentClass}>
          <Menu.Label className="px-2 py-1.5 text-xs text-muted">{me.user.email}</Menu.Label>
          <Menu.Item className={menuItemClass} onSelect={() => void navigate({ to: '/account' })}>
            Account
          </Menu.Item>
          <Menu.Item className={menuItemClass} onSelect={() => void navigate({ to: '/account/security' })}>
            Security
          </Menu.Item>
          <Menu.Separator className="my-1 h-px bg-gray-200" />
          <Menu.Item className={menuItemClass} onSelect={() => void signOut()}>
            Sign out
          </Menu.Item>
        </Menu.Content>
      </Menu.Portal>
    </Menu.Root>
  )
}

function initials(name: string): string {
  const parts = name.split(/[\s@.]+/).filter(Boolean)
  return ((parts[0]?.[0] ?? '') + (parts[1]?.[0] ?? '')).toUpperCase() || '?'
}
