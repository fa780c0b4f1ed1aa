import * as Menu from '@radix-ui/react-dropdown-menu'
import { useNavigate } from '@tanstack/react-router'
import { useState } from 'react'
import { useMe, useSwitchWorkspace } from '../auth/session.ts'
import { Dialog } from '../components/Dialog.tsx'
import { useToast } from '../components/Toast.tsx'
import { WORKSPACE_ROLE_LABELS } from '../lib/vocabulary.ts'
import { CreateWorkspaceForm } from './CreateWorkspaceForm.tsx'
import { menuContentClass, menuItemClass } from './menu-styles.ts'

/** The selected workspace; switches to another or creates one. Everything cached belongs to a workspace, so a switch refetches all. */
export function WorkspaceSwitcher() {
  const me = useMe()
  const navigate = useNavigate()
  const toast = useToast()
  const [creating, setCreating] = useState(false)
  const switchWorkspace = useSwitchWorkspace()

  const switchTo = (workspaceId: string) =>
    switchWorkspace.mutate(workspaceId, {
      onSuccess: () => void navigate({ to: '/' }),
      onError: (error) => toast({ title: 'Could not switch workspace', description: error.message, tone: 'error' }),
    })

  return (
    <>
      <Menu.Root>
        <Menu.Trigger className="flex w-full items-center justify-between gap-2 rounded-md border border-line bg-white px-3 py-2 text-left text-sm hover:bg-gray-50">
          <span className="min-w-0">
            <span className="block text-xs text-muted">Workspace</span>
            <span className="block truncate font-medium">{me.workspace?.name ?? 'None'}</span>
          </span>
          <svg viewBox="0 0 20 20" className="size-4 shrink-0 text-muted" fill="currentColor" aria-hidden="true">
            <path d="M10 3l4 4H6l4-4Zm0 14l-4-4h8l-4 4Z" />
          </svg>
        </Menu.Trigger>
        <Menu.Portal>
          <Menu.Content align="start" sideOffset={4} className={menuContentClass}>
            <Menu.RadioGroup value={me.workspace?.id ?? ''} onValueChange={switchTo}>
              {me.workspaces.map((workspace) => (
                <Menu.RadioItem key={workspace.id} value={workspace.id} className={menuItemClass}>
                  <span className="flex-1 truncate">{workspace.name}</span>
                  <span className="ml-3 text-xs text-muted">{WORKSPACE_ROLE_LABELS[workspace.role]}</span>
                  <Menu.ItemIndicator className="ml-2" aria-hidden="true">
                    ✓
                  </Menu.ItemIndicator>
                </Menu.RadioItem>
              ))}
            </Menu.RadioGroup>
            <Menu.Separator className="my-1 h-px bg-gray-200" />
            <Menu.Item className={menuItemClass} onSelect={() => setCreating(true)}>
              New workspace…
            </Menu.Item>
          </Menu.Content>
        </Menu.Portal>
      </Menu.Root>
      <Dialog open={creating} onOpenChange={setCreating} title="New workspace" description="You will be its owner; it starts on the Free plan.">
        <CreateWorkspaceForm
          onCreated={() => {
            setCreating(false)
            void navigate({ to: '/' })
          }}
        />
      </Dialog>
    </>
  )
}
