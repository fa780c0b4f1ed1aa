/** The sidebar's links, in order; `operatorOnly` ones show for instance operators alone. */
export interface NavItem {
  to: string
  label: string
  exact?: boolean
}

export interface NavSection {
  label?: string
  items: NavItem[]
  operatorOnly?: boolean
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
      { to: '/settings/api-keys', label: 'Integration and API' },
      { to: '/settings/webhooks', label: 'Webhooks' },
      { to: '/settings/billing', label: 'Billing' },
      { to: '/settings/identity', label: 'Identity check' },
      { to: '/settings/members', label: 'Members' },
    ],
  },
  { label: 'Instance', operatorOnly: true, items: [{ to: '/operator', label: 'Operator' }] },
]
