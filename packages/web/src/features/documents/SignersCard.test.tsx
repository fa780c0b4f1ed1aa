// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { cleanup, render, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { ToastProvider } from '../../components/Toast.tsx'
import { formatDateTime } from '../../lib/format.ts'
import type { DocumentDetail, DocumentSigner } from './queries.ts'
import { SignersCard } from './SignersCard.tsx'

const SENT = '2026-11-20T09:00:00.000Z'
const SIGNED = '2026-11-21T10:30:00.000Z'

/** A signer who has done nothing yet; `change` says what happened to them. */
const signer = (role: number, name: string | null, email: string, change: Partial<DocumentSigner> = {}): DocumentSigner => ({
  id: `signer-${role}`,
  role,
  name,
  email,
  status: 'pending',
  auth_required: false,
  auth_verified: false,
  viewed_at: null,
  signed_at: null,
  declined_at: null,
  ...change,
})

const documentWith = (signers: DocumentSigner[], status: DocumentDetail['status'] = 'sent'): DocumentDetail => ({
  id: 'doc-lease',
  title: 'Lease',
  status,
  signers,
  created_at: SENT,
  updated_at: SENT,
  expires_at: null,
  voided_reason: null,
  signed_pdf_status: null,
  signed_pdf_error: null,
})

function renderCard(document: DocumentDetail) {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <ToastProvider>
        <SignersCard document={document} />
      </ToastProvider>
    </QueryClientProvider>,
  )
  return screen.getAllByRole('listitem')
}

/** Each row's line under the name, and whether it offers Resend. */
const rowsOf = (items: HTMLElement[]) =>
  items.map((item) => ({
    line: item.querySelector('p.mt-1')?.textContent,
    resend: within(item).queryByRole('button', { name: /Resend the invitation/ }) !== null,
  }))

/** Each row's status badge, the words beside the signer's name. */
const badgesOf = (items: HTMLElement[]) => items.map((item) => item.querySelector('p.font-medium > span')?.textContent)

afterEach(cleanup)

describe('the Signers card of a document sent one step after another', () => {
  it('lists the signers by step, says whom a waiting one waits for, and offers no Resend to them', () => {
    // Sent in role order, steps 2, 1, 2: Party 2 signs first.
    const rows = renderCard(
      documentWith([
        signer(0, 'Ann Smith', 'ann@example.com', { order: 2, invited_at: null }),
        signer(1, 'Bo Lee', 'bo@example.com', { order: 1, invited_at: SENT }),
        signer(2, null, 'cy@example.com', { order: 2, invited_at: null }),
      ]),
    )
    expect(rowsOf(rows)).toEqual([
      { line: `Step 1 · Party 2 · Invited ${formatDateTime(SENT)}`, resend: true },
      { line: 'Step 2 · Party 1 · Waiting for Bo Lee to sign', resend: false },
      { line: 'Step 2 · Party 3 · Waiting for Bo Lee to sign', resend: false },
    ])
  })

  it('badges a signer whose step has not come "Not invited yet": they have no invitation to open', () => {
    const rows = renderCard(
      documentWith([
        signer(0, 'Ann Smith', 'ann@example.com', { order: 1, invited_at: SENT, status: 'signed', signed_at: SIGNED }),
        signer(1, 'Bo Lee', 'bo@example.com', { order: 2, invited_at: SIGNED }),
        signer(2, null, 'cy@example.com', { order: 3, invited_at: null }),
      ]),
    )
    expect(badgesOf(rows)).toEqual(['Signed', 'Not opened yet', 'Not invited yet'])
  })

  it('names the earlier steps when more than two people are still to sign before', () => {
    const rows = renderCard(
      documentWith([
        signer(0, 'Ann Smith', 'ann@example.com', { order: 1, invited_at: SENT }),
        signer(1, 'Bo Lee', 'bo@example.com', { order: 1, invited_at: SENT, status: 'signed', signed_at: SIGNED }),
        signer(2, null, 'cy@example.com', { order: 1, invited_at: SENT }),
        signer(3, 'Di Park', 'di@example.com', { order: 2, invited_at: null }),
        signer(4, 'Ed Ruiz', 'ed@example.com', { order: 3, invited_at: null }),
      ]),
    )
    expect(rowsOf(rows).map(({ line }) => line)).toEqual([
      `Step 1 · Party 1 · Invited ${formatDateTime(SENT)}`,
      `Step 1 · Party 2 · Signed ${formatDateTime(SIGNED)}`,
      `Step 1 · Party 3 · Invited ${formatDateTime(SENT)}`,
      'Step 2 · Party 4 · Waiting for Ann Smith and cy@example.com to sign',
      'Step 3 · Party 5 · Waiting for steps 1 and 2',
    ])
  })

  it('says that a waiting signer was never invited once the document ended', () => {
    const rows = renderCard(
      documentWith(
        [
          signer(0, 'Ann Smith', 'ann@example.com', { order: 1, invited_at: SENT, status: 'declined', declined_at: SIGNED }),
          signer(1, 'Bo Lee', 'bo@example.com', { order: 2, invited_at: null }),
        ],
        'declined',
      ),
    )
    expect(rowsOf(rows)).toEqual([
      { line: `Step 1 · Party 1 · Declined ${formatDateTime(SIGNED)}`, resend: false },
      { line: 'Step 2 · Party 2 · Not invited', resend: false },
    ])
    // Not "yet": the document will never invite them.
    expect(badgesOf(rows)).toEqual(['Declined', 'Not invited'])
  })
})

describe('the Signers card of a document sent to everyone at once', () => {
  it('is as before: the signers as sent, no step, Resend for everyone who has not signed', () => {
    const rows = renderCard(
      documentWith([
        signer(0, 'Ann Smith', 'ann@example.com', { status: 'signed', signed_at: SIGNED }),
        signer(1, 'Bo Lee', 'bo@example.com'),
        signer(2, null, 'cy@example.com', { status: 'viewed', viewed_at: SIGNED }),
      ]),
    )
    expect(rowsOf(rows)).toEqual([
      { line: `Party 1 · Signed ${formatDateTime(SIGNED)}`, resend: false },
      { line: 'Party 2 · Not opened yet', resend: true },
      { line: `Party 3 · Opened ${formatDateTime(SIGNED)}`, resend: true },
    ])
    expect(badgesOf(rows)).toEqual(['Signed', 'Not opened yet', 'Opened'])
    expect(screen.queryByText(/Step|Waiting|Not invited/)).toBeNull()
  })

  it('with one signer, shows no party', () => {
    const rows = renderCard(documentWith([signer(0, 'Ann Smith', 'ann@example.com')]))
    expect(rowsOf(rows)).toEqual([{ line: 'Not opened yet', resend: true }])
  })
})
