import { connect } from '../client.ts'
import { print, printJson, table } from '../output.ts'

const usd = (cents: number): string => `$${(cents / 100).toFixed(2)}`

export async function usage(options: { json?: boolean }): Promise<number> {
  const { signet } = connect()
  const report = await signet.usage.get()
  if (options.json) {
    printJson(report)
    return 0
  }
  const sources = report.units_by_source
  const rows = [
    ['Plan', report.plan],
    ['Period', report.period],
    ['Included', `${report.included_used} of ${report.included_allowance} used, ${report.included_remaining} left`],
    ['Credits', `${report.credits_used} used, ${report.credit_balance} left`],
    ['Billable', `${report.billable_units} × ${usd(report.unit_price_cents)} = ${usd(report.amount_cents)}`],
    ['Spend cap', report.spend_cap_cents === null ? 'none' : `${usd(report.spend_cap_cents)} (${usd(report.spend_cap_remaining_cents ?? 0)} left)`],
    ['Unmetered', String(report.unlimited_units)],
    ['By source', `${sources.rest_sends} API sends, ${sources.bulk_sends} bulk, ${sources.agent_tool_sends} agent, ${sources.seals} seals`],
  ]
  print(table(['', ''], rows).split('\n').slice(1).join('\n'))
  return 0
}
