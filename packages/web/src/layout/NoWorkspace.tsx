import { Card } from '../components/Card.tsx'
import { PageHeader } from '../components/PageHeader.tsx'
import { CreateWorkspaceForm } from './CreateWorkspaceForm.tsx'

/** A user who belongs to no workspace (removed from their last one) creates one or accepts an invitation. */
export function NoWorkspace() {
  return (
    <>
      <PageHeader title="No workspace" description="You are not a member of any workspace. Create one, or open an invitation link you were sent." />
      <Card className="max-w-lg">
        <CreateWorkspaceForm />
      </Card>
    </>
  )
}
