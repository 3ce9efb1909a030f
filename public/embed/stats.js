// <dealer-intel-stats>: the platform statistics for marketing pages. Include this script from the
// API's own origin; the element reads /api/public/stats from that same origin (no key, no cookies),
// refreshes every `refresh` seconds (default 60, at least 5) and, when the API cannot be reached,
// keeps the last figures it showed or says quietly that they are unavailable.
(() => {
  const TAG = "dealer-intel-stats";
  if (customElements.get(TAG)) return;

  const API_ORIGIN = new URL(document.currentScript?.src ?? location.href).origin;
  const DEFAULT_REFRESH_SECONDS = 60;
  const MIN_REFRESH_SECONDS = 5;
  const REQUEST_TIMEOUT_MS = 10_000;

  const FIGURES = [
    { key: "organizations_evaluated", label: "Dealer groups evaluating" },
    { key: "active_rooftops", label: "Active rooftops" },
    { key: "deals_through_ai", label: "Deals through AI" },
    { key: "demo_sessions", label: "Demo sessions" },
    { key: "uptime_pct_90d", label: "Uptime, last 90 days", percent: true },
  ];

  const STYLE = `
    :host { display: block; font: inherit; color: inherit; }
    dl { display: flex; flex-wrap: wrap; gap: var(--dis-gap, 1.5rem); margin: 0; }
    div { min-width: 8rem; }
    dt { font-size: 0.875em; opacity: 0.75; }
    dd { margin: 0; font-size: var(--dis-figure-size, 1.75em); font-weight: 600; font-variant-numeric: tabular-nums; }
    p { margin: 0.5rem 0 0; font-size: 0.8em; opacity: 0.65; }
    [hidden] { display: none; }
  `;

  class DealerIntelStats extends HTMLElement {
    #timer = undefined;
    #loaded = false;

    constructor() {
      super();
      const root = this.attachShadow({ mode: "open" });
      root.innerHTML = `<style>${STYLE}</style>
        <section part="container" aria-label="Dealer Intelligence platform statistics" aria-busy="true">
          <dl part="figures" hidden></dl>
          <p part="status" role="status"></p>
        </section>`;
      this.section = root.querySelector("section");
      this.list = root.querySelector("dl");
      this.status = root.querySelector("p");
      for (const figure of FIGURES) {
        const item = document.createElement("div");
        const term = document.createElement("dt");
        const value = document.createElement("dd");
        term.textContent = figure.label;
        value.dataset.figure = figure.key;
        item.append(term, value);
        this.list.append(item);
      }
    }

    connectedCallback() {
      this.#refresh();
      const seconds = Math.max(MIN_REFRESH_SECONDS, Number(this.getAttribute("refresh")) || DEFAULT_REFRESH_SECONDS);
      this.#timer = setInterval(() => this.#refresh(), seconds * 1000);
    }

    disconnectedCallback() {
      clearInterval(this.#timer);
    }

    async #refresh() {
      try {
        const response = await fetch(`${API_ORIGIN}/api/public/stats`, {
          credentials: "omit",
          headers: { Accept: "application/json" },
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        this.#render(await response.json());
      } catch {
        this.#showUnavailable();
      }
    }

    #render(stats) {
      const locale = this.getAttribute("lang") || undefined;
      const count = new Intl.NumberFormat(locale);
      const percent = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });
      for (const figure of FIGURES) {
        const value = stats[figure.key];
        const cell = this.list.querySelector(`[data-figure="${figure.key}"]`);
        cell.textContent = typeof value !== "number" ? "–" : figure.percent ? `${percent.format(value)}%` : count.format(value);
      }
      const updated = new Date(stats.last_updated);
      this.status.textContent = Number.isNaN(updated.getTime())
        ? ""
        : `Updated ${updated.toLocaleTimeString(locale, { hour: "2-digit", minute: "2-digit" })}`;
      this.list.hidden = false;
      this.section.setAttribute("aria-busy", "false");
      this.dataset.state = "live";
      this.#loaded = true;
    }

    /** Quiet on purpose: figures already shown stay (marked as not current); otherwise one short line. */
    #showUnavailable() {
      this.section.setAttribute("aria-busy", "false");
      if (this.#loaded) {
        this.dataset.state = "stale";
        if (!this.status.textContent.endsWith("(not current)")) this.status.textContent += " (not current)";
        return;
      }
      this.dataset.state = "unavailable";
      this.status.textContent = "Live platform statistics are unavailable right now.";
    }
  }

  customElements.define(TAG, DealerIntelStats);
})();
