export const menuContentClass = 'z-50 min-w-52 rounded-md border border-line bg-white p-1 shadow-lg'
export const menuItemClass =
  'flex cursor-default items-center rounded px-2 py-2 text-sm outline-none select-none data-[highlighted]:bg-brand-50 data-[disabled]:text-gray-500'
