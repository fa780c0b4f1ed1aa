import { useQuery } from '@tanstack/react-query'
import { Badge } from '../../components/Badge.tsx'
import { Card } from '../../components/Card.tsx'
import { QueryView } from '../../components/QueryView.tsx'
import { TBody, THead, Table, Td, Th, Tr } from '../../components/Table.tsx'
import { describeBrowser } from '../../lib/browser-name.ts'
import { formatDateTime } from '../../lib/format.ts'
import { securityEventsQuery } from './queries.ts'

/** The account's security log: password and second-step changes, newest first; each one was also e-mailed. */
export function SecurityLogCard() {
  const events = useQuery(securityEventsQuery)
  return (
    <Card
      title="Security log"
      description="Changes to how you sign in, newest first. Each one was also e-mailed to you: if one was not you, change your password."
    >
      <QueryView query={events} loadingLabel="Loading the security log…">
        {({ events: list }) =>
          list.length === 0 ? (
            <p className="text-sm text-muted">Nothing yet.</p>
          ) : (
            <Table caption="Security log">
              <THead>
                <Tr>
                  <Th>What happened</Th>
                  <Th>When</Th>
                  <Th className="hidden md:table-cell">From</Th>
                </Tr>
              </THead>
              <TBody>
                {list.map((event, index) => (
                  <Tr key={`${event.created_at}-${index}`}>
                    <Td>
                      {event.description}
                      {event.by_someone_else && (
                        <Badge tone="warning" className="ml-2">
                          By an operator or owner
                        </Badge>
                      )}
                      <span className="block text-xs text-muted md:hidden">{origin(event.ip, event.user_agent)}</span>
                    </Td>
                    <Td className="whitespace-nowrap">{formatDateTime(event.created_at)}</Td>
                    <Td className="hidden md:table-cell">{origin(event.ip, event.user_agent)}</Td>
                  </Tr>
                ))}
              </TBody>
            </Table>
          )
        }
      </QueryView>
    </Card>
  )
}

function origin(ip: string | null, userAgent: string | null): string {
  if (!ip && !userAgent) return '—'
  return [userAgent ? describeBrowser(userAgent) : null, ip].filter(Boolean).join(' · ')
}
