import { useQueryClient } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { api, errorMessage, unwrap } from '../api/client.ts'
import { useToast } from '../components/Toast.tsx'

/** Ends this session, forgets everything cached and goes to the login page (a toast says why when it cannot). */
export function useSignOut(): () => Promise<void> {
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const toast = useToast()
  return async () => {
    try {
      await unwrap(api.POST('/auth/logout'))
    } catch (error) {
      toast({ title: 'Could not sign out', description: errorMessage(error), tone: 'error' })
      return
    }
    queryClient.clear()
    queryClient.setQueryData(['me'], null)
    await navigate({ to: '/login' })
  }
}
