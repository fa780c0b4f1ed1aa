import type { Ability } from '../auth/session.ts'

/** The sidebar's links, in order; one with an `ability` shows only to those /me says have it. */
export interface NavItem {
  to: string
  label: string
  exact?: boolean
  ability?: Ability
}

export interface NavSection {
  label?: string
  items: NavItem[]
}

export const NAV: NavSection[] = [
  {
    items: [
      { to: '/', label: 'Overview', exact: true },
      { to: '/documents', label: 'Documents' },
      { to: '/send', label: 'Send' },
      { to: '/bulk-send', label: 'Bulk send' },
      { to: '/templates', label: 'Templates' },
    ],
  },
  {
    label: 'Settings',
    items: [
      { to: '/settings/api-keys', label: 'Integration and API', ability: 'manage_api_keys' },
      { to: '/settings/connected-apps', label: 'Connected apps' },
      { to: '/settings/webhooks', label: 'Webhooks', ability: 'manage_webhooks' },
      // Everyone sees the default their documents get; owners and admins change it there.
      { to: '/settings/reminders', label: 'Reminders' },
      { to: '/settings/billing', label: 'Billing' },
      { to: '/settings/identity', label: 'Identity check' },
      { to: '/settings/members', label: 'Members' },
    ],
  },
  { label: 'Instance', items: [{ to: '/operator', label: 'Operator', ability: 'operate_instance' }] },
]
