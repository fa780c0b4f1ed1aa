import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { useState, type FormEvent } from 'react'
import { useMe } from '../../auth/session.ts'
import { Badge } from '../../components/Badge.tsx'
import { Button } from '../../components/Button.tsx'
import { Card } from '../../components/Card.tsx'
import { ErrorMessage } from '../../components/ErrorMessage.tsx'
import { Field } from '../../components/Field.tsx'
import { Input } from '../../components/Input.tsx'
import { PageHeader } from '../../components/PageHeader.tsx'
import { QueryView } from '../../components/QueryView.tsx'
import { ActionsTh, TBody, THead, Table, Td, Th, Tr } from '../../components/Table.tsx'
import { useToast } from '../../components/Toast.tsx'
import { describeBrowser } from '../../lib/browser-name.ts'
import { formatDateTime } from '../../lib/format.ts'
import { fieldErrorText, placeError } from '../../lib/people-text.ts'
import { PASSWORD_HINT } from '../auth/forms.ts'
import { sessionsQuery, twoFactorQuery, useChangePassword, useEndSession, useSaveProfile } from './queries.ts'

export function AccountPage() {
  return (
    <>
      <PageHeader title="Account" description="Your profile, password and the browsers signed in to your account." />
      <div className="flex flex-col gap-5">
        <Profile />
        <ChangePassword />
        <TwoFactorSummary />
        <Sessions />
      </div>
    </>
  )
}

function Profile() {
  const me = useMe()
  const toast = useToast()
  const [name, setName] = useState(me.user.name)
  const save = useSaveProfile()
  const submit = (event: FormEvent) => {
    event.preventDefault()
    save.mutate(name, { onSuccess: () => toast({ title: 'Profile saved', tone: 'success' }) })
  }
  return (
    <Card title="Profile">
      <form onSubmit={submit} className="flex max-w-lg flex-col gap-4" noValidate>
        <Field label="E-mail" hint="Your login; it cannot be changed here.">
          <Input value={me.user.email} readOnly />
        </Field>
        <Field label="Name" error={fieldErrorText(save.error)} required>
          <Input autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <div>
          <Button type="submit" loading={save.isPending}>
            Save profile
          </Button>
        </div>
      </form>
    </Card>
  )
}

function ChangePassword() {
  const toast = useToast()
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')
  const change = useChangePassword()
  const errors = placeError(change.error, ['current_password', 'new_password'])
  const submit = (event: FormEvent) => {
    event.preventDefault()
    change.mutate(
      { current_password: current, new_password: next },
      {
        onSuccess: () => {
          setCurrent('')
          setNext('')
          toast({ title: 'Password changed', description: 'Your other sessions were signed out.', tone: 'success' })
        },
      },
    )
  }
  return (
    <Card title="Password" description="Changing it signs out every other browser.">
      <form onSubmit={submit} className="flex max-w-lg flex-col gap-4" noValidate>
        <Field label="Current password" error={errors.under('current_password')} required>
          <Input type="password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)} />
        </Field>
        <Field label="New password" hint={PASSWORD_HINT} error={errors.under('new_password')} required>
          <Input type="password" autoComplete="new-password" value={next} onChange={(e) => setNext(e.target.value)} />
        </Field>
        {errors.above && <ErrorMessage error={errors.above} />}
        <div>
          <Button type="submit" loading={change.isPending}>
            Change password
          </Button>
        </div>
      </form>
    </Card>
  )
}

/** Where the second sign-in step is set up, and whether it is on. */
function TwoFactorSummary() {
  const status = useQuery(twoFactorQuery)
  const badge = status.data ? status.data.enabled ? <Badge tone="success">On</Badge> : <Badge tone="neutral">Off</Badge> : undefined
  return (
    <Card title="Two-factor sign-in" description="A second step after your password: an authenticator app or a passkey, with recovery codes." actions={badge}>
      <Button asChild variant="secondary">
        <Link to="/account/security">Open security settings</Link>
      </Button>
    </Card>
  )
}

function Sessions() {
  const sessions = useQuery(sessionsQuery)
  const end = useEndSession()
  return (
    <Card title="Sessions" description="Browsers signed in to your account. End one you do not recognise, then change your password.">
      {end.error && <ErrorMessage className="mb-3" error={end.error} />}
      <QueryView query={sessions} loadingLabel="Loading sessions…">
        {({ sessions: list }) => (
          <Table caption="Sessions">
            <THead>
              <Tr>
                <Th>Browser</Th>
                <Th className="hidden sm:table-cell">IP address</Th>
                <Th className="hidden md:table-cell">Signed in</Th>
                <Th className="hidden sm:table-cell">Last active</Th>
                <ActionsTh />
              </Tr>
            </THead>
            <TBody>
              {list.map((session) => (
                <Tr key={session.id}>
                  <Td className="max-w-64">
                    <span className="line-clamp-2 break-all">{describeBrowser(session.user_agent)}</span>
                    <span className="block text-xs text-muted sm:hidden">
                      {session.ip ?? 'unknown address'} · active {formatDateTime(session.last_seen_at)}
                    </span>
                  </Td>
                  <Td className="hidden sm:table-cell">{session.ip ?? '—'}</Td>
                  <Td className="hidden whitespace-nowrap md:table-cell">{formatDateTime(session.created_at)}</Td>
                  <Td className="hidden whitespace-nowrap sm:table-cell">{formatDateTime(session.last_seen_at)}</Td>
                  <Td className="text-right">
                    {session.current ? (
                      <Badge tone="info">This browser</Badge>
                    ) : (
                      <Button
                        size="sm"
                        variant="danger-secondary"
                        loading={end.isPending && end.variables === session.id}
                        onClick={() => end.mutate(session.id)}
                        aria-label={`End the session from ${describeBrowser(session.user_agent)} signed in ${formatDateTime(session.created_at)}`}
                      >
                        End
                      </Button>
                    )}
                  </Td>
                </Tr>
              ))}
            </TBody>
          </Table>
        )}
      </QueryView>
    </Card>
  )
}
