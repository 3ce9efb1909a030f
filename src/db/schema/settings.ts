export const SETTINGS_AREAS = ["store", "lender_panel", "compliance"] as const;
