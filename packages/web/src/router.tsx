import type { QueryClient } from '@tanstack/react-query'
import { createRootRouteWithContext, createRoute, createRouter, Link, Outlet, redirect } from '@tanstack/react-router'
import { preload } from './api/preload.ts'
import { meQuery, instanceQuery } from './auth/session.ts'
import { EmptyState } from './components/EmptyState.tsx'
import { ErrorMessage } from './components/ErrorMessage.tsx'
import { Loading } from './components/Spinner.tsx'
import { AccountPage, accountLoads } from './features/account/index.ts'
import { ForgotPasswordPage, InvitationPage, LoginPage, ResetPasswordPage, SetupPage, SignUpPage, VerifyEmailPage } from './features/auth/index.ts'
import { bulkSendLoads, BulkSendPage } from './features/bulk-send/index.ts'
import { DocumentDetailPage, documentCountsQuery, documentListQuery, documentQuery, DocumentsPage } from './features/documents/index.ts'
import { ConsentPage, consentLoads } from './features/oauth/index.ts'
import { operatorLoads, OperatorPage } from './features/operator/index.ts'
import { OverviewPage, overviewLoads } from './features/overview/index.ts'
import { SecurityPage, securityLoads } from './features/security/index.ts'
import { sendLoads, SendPage } from './features/send/index.ts'
import {
  ApiKeysPage,
  apiKeysLoads,
  BillingPage,
  billingLoads,
  ConnectedAppsPage,
  connectedAppsLoads,
  IdentityPage,
  identityCheckLoads,
  MembersPage,
  membersLoads,
  RemindersPage,
  remindersLoads,
  WebhooksPage,
  webhooksLoads,
} from './features/settings/index.ts'
import { templateEditorLoads, TemplateEditorPage, templatesLoads, TemplatesPage } from './features/templates/index.ts'
import { AppShell } from './layout/AppShell.tsx'
import { AuthLayout } from './layout/AuthLayout.tsx'
import { appPathOf, optionalNumber, optionalString } from './lib/search.ts'

/**
 * Every route of the dashboard (served under /app/). Pages read their params with
 * getRouteApi('<route id>') — e.g. getRouteApi('/signed-in/documents/$id').useParams() — so
 * that page modules never import this file.
 */
export interface RouterContext {
  queryClient: QueryClient
}

const rootRoute = createRootRouteWithContext<RouterContext>()({
  component: Outlet,
  notFoundComponent: NotFound,
})

const tokenSearch = (search: Record<string, unknown>) => ({ token: optionalString(search, 'token') ?? '' })

/** Log-in and sign-up pages lead a signed-in person into the app: to the login's `next` (e.g. an app's consent page), else the overview. */
const redirectIfSignedIn = async ({ context, search }: { context: RouterContext; search: { next?: string } }) => {
  const me = await context.queryClient.ensureQueryData(meQuery).catch(() => null)
  if (me) throw redirect({ to: appPathOf(search.next) ?? '/' })
}

// Pages one sees without a session.
const publicLayout = createRoute({ getParentRoute: () => rootRoute, id: 'public', component: AuthLayout })
const setupRoute = createRoute({ getParentRoute: () => publicLayout, path: 'setup', validateSearch: tokenSearch, component: SetupPage })
const signUpRoute = createRoute({ getParentRoute: () => publicLayout, path: 'signup', beforeLoad: redirectIfSignedIn, component: SignUpPage })
const loginRoute = createRoute({
  getParentRoute: () => publicLayout,
  path: 'login',
  beforeLoad: redirectIfSignedIn,
  validateSearch: (search: Record<string, unknown>): { next?: string } => ({ next: optionalString(search, 'next') }),
  component: LoginPage,
})
const verifyEmailRoute = createRoute({ getParentRoute: () => publicLayout, path: 'verify-email', validateSearch: tokenSearch, component: VerifyEmailPage })
const forgotPasswordRoute = createRoute({ getParentRoute: () => publicLayout, path: 'forgot-password', component: ForgotPasswordPage })
const resetPasswordRoute = createRoute({
  getParentRoute: () => publicLayout,
  path: 'reset-password',
  validateSearch: tokenSearch,
  component: ResetPasswordPage,
})
const invitationRoute = createRoute({ getParentRoute: () => publicLayout, path: 'invite/$token', component: InvitationPage })
// An app connecting with OAuth: the server sends the browser here during its authorization (no sidebar: the app is waiting).
const consentRoute = createRoute({
  getParentRoute: () => publicLayout,
  path: 'oauth/consent/$uid',
  loader: ({ context: { queryClient }, params }) => consentLoads(queryClient, params.uid),
  component: ConsentPage,
})

// The signed-in app: without a session, sign-up on a fresh instance, else the login page.
const signedInLayout = createRoute({
  getParentRoute: () => rootRoute,
  id: 'signed-in',
  beforeLoad: async ({ context, location }) => {
    const me = await context.queryClient.ensureQueryData(meQuery)
    if (me) return
    const instance = await context.queryClient.ensureQueryData(instanceQuery).catch(() => null)
    if (instance?.setup_required) throw redirect({ to: '/signup' })
    throw redirect({ to: '/login', search: { next: location.href === '/' ? undefined : location.href } })
  },
  pendingComponent: () => <Loading className="justify-center" />,
  errorComponent: ({ error, reset }) => (
    <main id="main" className="mx-auto max-w-lg p-6">
      <h1 className="mb-4 text-xl">The dashboard could not load</h1>
      <ErrorMessage error={error} onRetry={reset} />
    </main>
  ),
  component: AppShell,
})
const child = <Path extends string>(path: Path) => ({ getParentRoute: () => signedInLayout, path })

const overviewRoute = createRoute({
  ...child('/'),
  loader: ({ context: { queryClient } }) => preload(...overviewLoads(queryClient)),
  component: OverviewPage,
})
const documentsRoute = createRoute({
  ...child('documents'),
  validateSearch: (search: Record<string, unknown>): { status?: string; search?: string; offset?: number } => ({
    status: optionalString(search, 'status'),
    search: optionalString(search, 'search'),
    offset: optionalNumber(search, 'offset'),
  }),
  loaderDeps: ({ search }) => search,
  // Awaited on hover too (defaultPreload 'intent'), so the page opens with its rows.
  loader: ({ context: { queryClient }, deps }) =>
    preload(queryClient.ensureQueryData(documentListQuery(deps)), queryClient.ensureQueryData(documentCountsQuery(deps.search))),
  component: DocumentsPage,
})
const documentRoute = createRoute({
  ...child('documents/$id'),
  loader: ({ context: { queryClient }, params }) => preload(queryClient.ensureQueryData(documentQuery(params.id))),
  component: DocumentDetailPage,
})
const sendRoute = createRoute({
  ...child('send'),
  validateSearch: (search: Record<string, unknown>): { template?: string } => ({ template: optionalString(search, 'template') }),
  loader: ({ context: { queryClient } }) => preload(...sendLoads(queryClient)),
  component: SendPage,
})
const bulkSendRoute = createRoute({
  ...child('bulk-send'),
  validateSearch: (search: Record<string, unknown>): { template?: string } => ({ template: optionalString(search, 'template') }),
  loader: ({ context: { queryClient } }) => preload(...bulkSendLoads(queryClient)),
  component: BulkSendPage,
})
const templatesRoute = createRoute({
  ...child('templates'),
  loader: ({ context: { queryClient } }) => preload(...templatesLoads(queryClient)),
  component: TemplatesPage,
})
const templateRoute = createRoute({
  ...child('templates/$id'),
  loader: ({ context: { queryClient }, params }) => preload(...templateEditorLoads(queryClient, params.id)),
  component: TemplateEditorPage,
})
const apiKeysRoute = createRoute({
  ...child('settings/api-keys'),
  loader: ({ context: { queryClient } }) => preload(...apiKeysLoads(queryClient)),
  component: ApiKeysPage,
})
const connectedAppsRoute = createRoute({
  ...child('settings/connected-apps'),
  loader: ({ context: { queryClient } }) => preload(...connectedAppsLoads(queryClient)),
  component: ConnectedAppsPage,
})
const webhooksRoute = createRoute({
  ...child('settings/webhooks'),
  loader: ({ context: { queryClient } }) => preload(...webhooksLoads(queryClient)),
  component: WebhooksPage,
})
const remindersRoute = createRoute({
  ...child('settings/reminders'),
  loader: ({ context: { queryClient } }) => preload(...remindersLoads(queryClient)),
  component: RemindersPage,
})
const billingRoute = createRoute({
  ...child('settings/billing'),
  validateSearch: (search: Record<string, unknown>): { period?: string } => ({ period: optionalString(search, 'period') }),
  loaderDeps: ({ search }) => search,
  loader: ({ context: { queryClient }, deps }) => preload(...billingLoads(queryClient, deps.period)),
  component: BillingPage,
})
const identityRoute = createRoute({
  ...child('settings/identity'),
  loader: ({ context: { queryClient } }) => preload(...identityCheckLoads(queryClient)),
  component: IdentityPage,
})
const membersRoute = createRoute({
  ...child('settings/members'),
  loader: ({ context: { queryClient } }) => preload(...membersLoads(queryClient)),
  component: MembersPage,
})
const accountRoute = createRoute({
  ...child('account'),
  loader: ({ context: { queryClient } }) => preload(...accountLoads(queryClient)),
  component: AccountPage,
})
const securityRoute = createRoute({
  ...child('account/security'),
  loader: ({ context: { queryClient } }) => preload(...securityLoads(queryClient)),
  component: SecurityPage,
})
const operatorRoute = createRoute({
  ...child('operator'),
  loader: ({ context: { queryClient } }) => preload(...operatorLoads(queryClient)),
  component: OperatorPage,
})

const routeTree = rootRoute.addChildren([
  publicLayout.addChildren([setupRoute, signUpRoute, loginRoute, verifyEmailRoute, forgotPasswordRoute, resetPasswordRoute, invitationRoute, consentRoute]),
  signedInLayout.addChildren([
    overviewRoute,
    documentsRoute,
    documentRoute,
    sendRoute,
    bulkSendRoute,
    templatesRoute,
    templateRoute,
    apiKeysRoute,
    connectedAppsRoute,
    webhooksRoute,
    remindersRoute,
    billingRoute,
    identityRoute,
    membersRoute,
    accountRoute,
    securityRoute,
    operatorRoute,
  ]),
])

export function createAppRouter(queryClient: QueryClient) {
  return createRouter({
    routeTree,
    basepath: '/app',
    context: { queryClient },
    defaultPreload: 'intent',
    scrollRestoration: true,
  })
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof createAppRouter>
  }
}

function NotFound() {
  return (
    <main id="main" className="mx-auto max-w-lg p-6">
      <EmptyState
        title="Page not found"
        description="There is no page at this address."
        action={
          <Link to="/" className="font-medium text-brand-700 underline">
            Go to the overview
          </Link>
        }
      />
    </main>
  )
}
