import type { ReminderSchedule } from '../../api/queries.ts'

/** The three numbers of a reminder schedule as typed (a cleared box is ''). */
export type ReminderDraft = Record<keyof ReminderSchedule, string>

/** What the boxes hold when nothing was set before: a reminder every few days, three at most. */
export const SUGGESTED_SCHEDULE: ReminderSchedule = { first_after_days: 3, every_days: 3, max: 3 }

export const draftOf = (schedule: ReminderSchedule): ReminderDraft => ({
  first_after_days: String(schedule.first_after_days),
  every_days: String(schedule.every_days),
  max: String(schedule.max),
})

/**
 * The boxes as the API takes them. A cleared or odd value is sent as it is (a cleared one as 0):
 * the server's refusal then shows under that box, in one set of words for the form and the API.
 */
export const scheduleOf = (draft: ReminderDraft): ReminderSchedule => ({
  first_after_days: Number(draft.first_after_days),
  every_days: Number(draft.every_days),
  max: Number(draft.max),
})
