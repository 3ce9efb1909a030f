// <dealer-intel-stats>: the platform statistics for marketing pages. Include this script from the
// API's own origin; the element reads /api/public/stats from that same origin (no key, no cookies),
// refreshes every `refresh` seconds (default 60, at least 5) and, when the API cannot be reached,
// keeps the last figures it showed or says quietly that they are unavailable. `figures`, `hide-below`,
// `format` and `lang` choose what is shown and how (docs/developer-experience.md#the-statistics-widget).
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
  const BY_KEY = new Map(FIGURES.map((figure) => [figure.key, figure]));

  // Each mistake is reported once per page, not at every refresh or re-render.
  const warned = new Set();
  const warn = (message) => {
    if (warned.has(message)) return;
    warned.add(message);
    console.warn(`<${TAG}>: ${message}`);
  };
  const known = (key) => {
    if (BY_KEY.has(key)) return true;
    warn(`unknown figure "${key}" ignored; known: ${[...BY_KEY.keys()].join(", ")}`);
    return false;
  };
  /** A marketer's list: names separated by spaces and/or commas. */
  const words = (text) => (text ?? "").split(/[\s,]+/).filter(Boolean);

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
    static observedAttributes = ["figures", "hide-below", "format", "lang", "refresh"];
    #timer = undefined;
    #stats = undefined;

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
    }

    connectedCallback() {
      this.#refresh();
      this.#schedule();
    }

    disconnectedCallback() {
      clearInterval(this.#timer);
    }

    attributeChangedCallback(name) {
      if (!this.isConnected) return;
      if (name === "refresh") this.#schedule();
      else if (this.#stats) this.#showFigures();
    }

    #schedule() {
      clearInterval(this.#timer);
      const seconds = Math.max(MIN_REFRESH_SECONDS, Number(this.getAttribute("refresh")) || DEFAULT_REFRESH_SECONDS);
      this.#timer = setInterval(() => this.#refresh(), seconds * 1000);
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

    /** The element's or the page's language; a tag Intl rejects falls back to the browser's. */
    #locale() {
      try {
        return Intl.getCanonicalLocales(this.closest("[lang]")?.lang || [])[0];
      } catch {
        warn(`lang "${this.closest("[lang]").lang}" is not a language tag; using the browser's`);
      }
    }

    /** `figures="a b"` (order kept) or all of them; `hide-below="a:10 b:1000"` drops a figure under its minimum. */
    #chosenFigures() {
      const named = words(this.getAttribute("figures")).filter(known);
      const minimums = new Map();
      for (const rule of words(this.getAttribute("hide-below")?.replace(/\s*:\s*/g, ":"))) {
        const [key, minimum] = rule.split(":");
        if (!minimum || Number.isNaN(Number(minimum))) warn(`hide-below "${rule}" ignored: write figure:minimum, e.g. active_rooftops:10`);
        else if (known(key)) minimums.set(key, Number(minimum));
      }
      return (named.length ? [...new Set(named)].map((key) => BY_KEY.get(key)) : FIGURES).filter(
        ({ key }) => !minimums.has(key) || this.#stats[key] >= minimums.get(key),
      );
    }

    #showFigures() {
      const locale = this.#locale();
      const count = new Intl.NumberFormat(locale, this.getAttribute("format") === "compact" ? { notation: "compact", maximumFractionDigits: 1 } : {});
      const percent = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });
      this.list.replaceChildren(
        ...this.#chosenFigures().map(({ key, label, percent: isPercent }) => {
          const value = this.#stats[key];
          const item = document.createElement("div");
          const term = document.createElement("dt");
          const cell = document.createElement("dd");
          item.setAttribute("part", `figure figure-${key}`);
          term.setAttribute("part", `label label-${key}`);
          cell.setAttribute("part", `value value-${key}`);
          term.textContent = label;
          cell.dataset.figure = key;
          cell.textContent = typeof value !== "number" ? "–" : isPercent ? `${percent.format(value)}%` : count.format(value);
          item.append(term, cell);
          return item;
        }),
      );
    }

    #render(stats) {
      this.#stats = stats;
      this.#showFigures();
      const updated = new Date(stats.last_updated);
      this.status.textContent = Number.isNaN(updated.getTime())
        ? ""
        : `Updated ${updated.toLocaleTimeString(this.#locale(), { hour: "2-digit", minute: "2-digit" })}`;
      this.list.hidden = false;
      this.section.setAttribute("aria-busy", "false");
      this.dataset.state = "live";
    }

    /** Quiet on purpose: figures already shown stay (marked as not current); otherwise one short line. */
    #showUnavailable() {
      this.section.setAttribute("aria-busy", "false");
      if (this.#stats) {
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
