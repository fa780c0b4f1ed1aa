import { getRouteApi, Link } from '@tanstack/react-router'
import { useEffect, useRef } from 'react'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { Loading } from '../../components/Spinner.tsx'
import { AuthHeading } from '../../layout/AuthHeading.tsx'
import { useVerifyEmail } from './queries.ts'

const route = getRouteApi('/public/verify-email')

/** The link from the verification mail: verifies at once (the token is single-use) and enters the app. */
export function VerifyEmailPage() {
  const { token } = route.useSearch()
  const verify = useVerifyEmail()
  const started = useRef(false)
  useEffect(() => {
    if (started.current || !token) return
    started.current = true
    verify.mutate(token)
  }, [token, verify])
  return (
    <>
      <AuthHeading title="Verify your e-mail" />
      {!token ? (
        <ErrorMessage error="This link has no verification token. Open the link from the e-mail exactly as it was sent." />
      ) : verify.isError ? (
        <>
          <ErrorMessage error={verify.error} />
          <p className="mt-4 text-sm">
            <Link to="/login" className="font-medium text-brand-700 underline">
              Go to the login page
            </Link>
          </p>
        </>
      ) : (
        <Loading label="Verifying your e-mail…" />
      )}
    </>
  )
}
