import { Type, type Static } from 'typebox'
import { WEBHOOK_EVENT_TYPES } from '../webhooks/webhook-events.ts'

export const TriggerBody = Type.Object(
  { event: Type.Enum(WEBHOOK_EVENT_TYPES, { description: 'which of the four webhook events to imitate' }) },
  { additionalProperties: false },
)
export type TriggerBody = Static<typeof TriggerBody>

export const TriggerAccepted = Type.Object(
  {
    id: Type.String({ description: "the test event's id, as the stream's data carries it (evt_test_…)" }),
    event: Type.Enum(WEBHOOK_EVENT_TYPES),
  },
  { additionalProperties: false },
)
export type TriggerAccepted = Static<typeof TriggerAccepted>

export const StreamHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({
      maxLength: 64,
      description: 'The id of the last event a previous connection received: the stream resumes after it (at most one hour back), without repeating it.',
    }),
  ),
})
