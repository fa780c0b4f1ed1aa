import { api, unwrap } from '../../api/client.ts'

export const keysApi = {
  list: () => unwrap(api.GET('/keys')),
  create: (name: string) => unwrap(api.POST('/keys', { body: { name } })),
  revoke: (id: string) => unwrap(api.DELETE('/keys/{id}', { params: { path: { id } } })),
}

export type ApiKey = Awaited<ReturnType<typeof keysApi.list>>['keys'][number]
export type CreatedApiKey = Awaited<ReturnType<typeof keysApi.create>>
