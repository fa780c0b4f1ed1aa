/**
 * A route loader's data: `preload(queryClient.ensureQueryData(fooQuery), …)`, fetched before the
 * page shows (and on hover, with preloading). A refusal is not thrown, which would replace the
 * whole app with the router's error page: the page's own useQuery of the same options shows it in place.
 */
export async function preload(...loads: Promise<unknown>[]): Promise<void> {
  await Promise.allSettled(loads)
}
