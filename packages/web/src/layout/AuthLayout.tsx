import { Outlet } from '@tanstack/react-router'
import { Logo } from './Logo.tsx'

/** Sign-in, sign-up and the other pages one sees before having a session: one centred card. */
export function AuthLayout() {
  return (
    <div className="flex min-h-screen flex-col items-center px-4 py-10 sm:py-16">
      <header className="mb-6">
        <Logo />
      </header>
      <main id="main" className="w-full max-w-md rounded-lg border border-line bg-white p-5 shadow-sm sm:p-8">
        <Outlet />
      </main>
    </div>
  )
}
