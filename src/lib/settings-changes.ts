/**
 * A settings write drops, in the isolate that made it, every cached answer built on that
 * organization's settings, so its writer's next call sees the change at once; other isolates follow
 * when their caches expire (within the 60 s docs/settings.md promises). Caches register an eviction
 * here when their module loads; a route area not yet loaded has nothing cached to drop.
 */
const evictions = new Set<(orgId: string) => void>();

export function onSettingsChange(evict: (orgId: string) => void): void {
  evictions.add(evict);
}

export function settingsChanged(orgId: string): void {
  for (const evict of evictions) evict(orgId);
}
