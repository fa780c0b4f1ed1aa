import { getRouteApi } from '@tanstack/react-router'
import type { FormEvent } from 'react'
import { Button } from '../../components/Button.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { AuthHeading } from '../../layout/AuthHeading.tsx'
import { ACCOUNT_CONTROLS, AccountFields, useAccountForm } from './AccountFields.tsx'
import { placeError } from '../../lib/people-text.ts'
import { useSetUp } from './queries.ts'

const route = getRouteApi('/public/setup')

/** The one-time link `npm start` prints on a fresh instance: creates the instance operator's account. */
export function SetupPage() {
  const { token } = route.useSearch()
  const { form, set } = useAccountForm()
  const setUp = useSetUp()
  const errors = placeError(setUp.error, ACCOUNT_CONTROLS)
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
          <AccountFields form={form} set={set} errors={errors} emailLabel="E-mail" workspaceHint="Your own workspace; operators also see every other one." />
          {errors.above && <ErrorMessage error={errors.above} />}
          <Button type="submit" loading={setUp.isPending}>
            Create operator account
          </Button>
        </form>
      )}
    </>
  )
}
