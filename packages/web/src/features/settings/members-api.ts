import { api, unwrap } from '../../api/client.ts'
import type { WorkspaceRole } from '../../auth/session.ts'

export const membersApi = {
  list: () => unwrap(api.GET('/members')),
  invite: (body: { email: string; role: WorkspaceRole }) => unwrap(api.POST('/members/invitations', { body })),
  revokeInvitation: (id: string) => unwrap(api.DELETE('/members/invitations/{id}', { params: { path: { id } } })),
  setRole: (userId: string, role: WorkspaceRole) => unwrap(api.PATCH('/members/{userId}', { params: { path: { userId } }, body: { role } })),
  remove: (userId: string) => unwrap(api.DELETE('/members/{userId}', { params: { path: { userId } } })),
}

export type Member = Awaited<ReturnType<typeof membersApi.list>>['members'][number]
export type PendingInvitation = Awaited<ReturnType<typeof membersApi.list>>['invitations'][number]
