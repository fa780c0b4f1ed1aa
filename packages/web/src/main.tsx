import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { RouterProvider } from '@tanstack/react-router'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { isApiError } from './api/client.ts'
import { meQuery } from './auth/session.ts'
import { ToastProvider } from './components/Toast.tsx'
import { securityKeys } from './features/security/queries.ts'
import { createAppRouter } from './router.tsx'
import './styles.css'

// A 401 anywhere means the session ended (expired, signed out elsewhere): forget who we were,
// and the signed-in layout's guard sends the person to the login page. A 403 may mean the
// workspace began to require a second sign-in step: asking who we are again lets the app show
// its gate instead of a page of refusals.
const onRefused = (error: unknown) => {
  if (isApiError(error, 403)) {
    void queryClient.invalidateQueries({ queryKey: meQuery.queryKey })
    void queryClient.invalidateQueries({ queryKey: securityKeys.twoFactor })
    return
  }
  if (!isApiError(error, 401)) return
  queryClient.setQueryData(meQuery.queryKey, null)
  void router.invalidate()
}

const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError: onRefused }),
  mutationCache: new MutationCache({ onError: onRefused }),
  defaultOptions: {
    queries: { retry: (count, error) => (count < 2 && !isApiError(error) && !(error instanceof TypeError) ? true : false), refetchOnWindowFocus: false },
  },
})
const router = createAppRouter(queryClient)

const root = document.getElementById('root')
if (!root) throw new Error('index.html has no #root')
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <ToastProvider>
        <RouterProvider router={router} />
      </ToastProvider>
    </QueryClientProvider>
  </StrictMode>,
)
