import { useMutation } from '@tanstack/react-query'
import { getRouteApi } from '@tanstack/react-router'
import type { FormEvent } from 'react'
import { Button } from '../../components/Button.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { AuthHeading } from '../../layout/AuthHeading.tsx'
import { AccountFields, useAccountForm } from './AccountFields.tsx'
import { authApi } from './auth-api.ts'
import { useEnterApp } from './use-session-start.ts'

const route = getRouteApi('/public/setup')

/** The one-time link `npm start` prints on a fresh instance: creates the instance operator's account. */
export function SetupPage() {
  const { token } = route.useSearch()
  const enterApp = useEnterApp()
  const { form, set } = useAccountForm()
  const setUp = useMutation({ mutationFn: authApi.setUp, onSuccess: (me) => enterApp(me) })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    setUp.mutate({ token, ...form })
  }
  return (
    <>
      <AuthHeading title="Set up Signet">Create the operator account of this instance. This link works once.</AuthHeading>
      {!token ? (
        <ErrorMessage error="This page needs the setup link that `npm start` printed on the server's first start." />
      ) : (
        <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
          <AccountFields form={form} set={set} emailLabel="E-mail" workspaceHint="Your own workspace; operators also see every other one." />
          {setUp.error && <ErrorMessage error={setUp.error} />}
          <Button type="submit" loading={setUp.isPending}>
            Create operator account
          </Button>
        </form>
      )}
    </>
  )
}
