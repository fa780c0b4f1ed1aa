import { useNavigate } from '@tanstack/react-router'
import { errorMessage } from '../api/client.ts'
import { useToast } from '../components/Toast.tsx'
import { useLogOut } from './session.ts'

/** Ends this session and goes to the login page (a toast says why when it cannot). */
export function useSignOut(): () => Promise<void> {
  const logOut = useLogOut()
  const navigate = useNavigate()
  const toast = useToast()
  return async () => {
    try {
      await logOut.mutateAsync()
    } catch (error) {
      toast({ title: 'Could not sign out', description: errorMessage(error), tone: 'error' })
      return
    }
    await navigate({ to: '/login' })
  }
}
