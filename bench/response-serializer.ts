/**
 * How long a document's status takes to serialize: Fastify's own serializer (TypeBox's anyOf for
 * every nullable value) against http/response-serializer.ts (type lists). Alternating rounds, the
 * median per serialization. Run: node --conditions=source --import tsx bench/response-serializer.ts
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import { DocumentView } from '../packages/server/src/documents/documents.schemas.ts'
import { buildResponseSerializers } from '../packages/server/src/http/response-serializer.ts'

const ROUNDS = 9
const PER_ROUND = 300_000
const at = '2026-11-27T10:00:00.000Z'
const status = {
  id: '0b1c2d3e-1111-4222-8333-444455556666',
  title: 'Lease agreement',
  status: 'pending',
  voided_reason: null,
  created_at: at,
  updated_at: at,
  expires_at: at,
  signed_pdf_status: null,
  signed_pdf_error: null,
  signers: [0, 1].map((i) => ({
    id: `0b1c2d3e-1111-4222-8333-44445555666${i}`,
    role: i,
    email: `s${i}@example.com`,
    name: `Signer ${i}`,
    status: 'pending',
    signed_at: i ? at : null,
    viewed_at: at,
    declined_at: null,
    auth_required: false,
    auth_verified: false,
  })),
}
const route = { schema: DocumentView, method: 'GET', url: '/api/v1/documents/:id', httpStatus: '200' }
const cases = [
  { name: 'anyOf (Fastify default)', serialize: SerializerSelector()(undefined, {})(route), micros: [] as number[] },
  { name: 'type lists (response-serializer.ts)', serialize: buildResponseSerializers()(undefined, {})(route), micros: [] as number[] },
]
for (let round = 0; round < ROUNDS; round++) {
  for (const entry of round % 2 ? [...cases].reverse() : cases) {
    const started = process.hrtime.bigint()
    for (let i = 0; i < PER_ROUND; i++) entry.serialize(status)
    entry.micros.push(Number(process.hrtime.bigint() - started) / PER_ROUND / 1000)
  }
}
for (const { name, micros } of cases) {
  const sorted = micros.sort((a, b) => a - b)
  console.log(`${name}: median ${sorted[Math.floor(ROUNDS / 2)]?.toFixed(2)} µs (min ${sorted[0]?.toFixed(2)}, max ${sorted[ROUNDS - 1]?.toFixed(2)})`)
}
