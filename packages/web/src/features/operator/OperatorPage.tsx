import { useMe } from '../../auth/session.ts'
import { EmptyState } from '../../components/EmptyState.tsx'
import { PageHeader } from '../../components/PageHeader.tsx'
import { Tabs, TabsContent, TabsList, TabsTrigger } from '../../components/Tabs.tsx'
import { IdentityChecksTab } from './IdentityChecksTab.tsx'
import { OrgsTab } from './OrgsTab.tsx'
import { UsersTab } from './UsersTab.tsx'

/** What only the operator CLI could do before: every workspace and user of the instance, plans, credits and identity checks. */
export function OperatorPage() {
  const me = useMe()
  if (!me.abilities.operate_instance) {
    return (
      <>
        <PageHeader title="Operator" />
        <EmptyState title="For the instance operator only" description="Ask the operator of this Signet instance to promote your account if you run it." />
      </>
    )
  }
  return (
    <>
      <PageHeader title="Operator" description="Every workspace and user of this instance." />
      <Tabs defaultValue="orgs">
        <TabsList aria-label="Operator areas">
          <TabsTrigger value="orgs">Workspaces</TabsTrigger>
          <TabsTrigger value="users">Users</TabsTrigger>
          <TabsTrigger value="identity">Identity checks</TabsTrigger>
        </TabsList>
        <TabsContent value="orgs">
          <OrgsTab />
        </TabsContent>
        <TabsContent value="users">
          <UsersTab />
        </TabsContent>
        <TabsContent value="identity">
          <IdentityChecksTab />
        </TabsContent>
      </Tabs>
    </>
  )
}
