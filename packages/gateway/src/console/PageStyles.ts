/** The console page's style sheet (one inline `<style>`, allowed by its hash in the page's CSP). */

/** The page's CSS. */
export const PAGE_STYLES = `
  body { font: 14px system-ui, sans-serif; margin: 1.5rem; color: #1d2330; }
  h1 { font-size: 1.3rem; } h2 { font-size: 1.05rem; margin-top: 1.6rem; } h3 { font-size: .95rem; margin: 1rem 0 .3rem; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #e3e6ee; vertical-align: top; }
  .ok { color: #17733a; } .denied, .failed, .withheld, .refused { color: #b3261e; } .tool_error { color: #a55b00; }
  .hooks { color: #59607a; font-size: 12px; }
  button { margin-right: .4rem; } .empty { color: #8a90a5; }
  #status { color: #8a90a5; font-size: 12px; }
  .countdown { font-variant-numeric: tabular-nums; } .countdown.urgent { color: #b3261e; font-weight: 600; }
  .filters { display: flex; gap: 1rem; align-items: end; flex-wrap: wrap; margin: .5rem 0 1rem; }
  .filters label { display: flex; flex-direction: column; font-size: 12px; color: #59607a; }
  .filters select { min-width: 9rem; max-width: 18rem; font: inherit; }
  .charts { display: flex; gap: 1.5rem; flex-wrap: wrap; }
  .chart { margin: 0; } .chart figcaption { font-weight: 600; margin-bottom: .3rem; }
  .chart svg { border: 1px solid #e3e6ee; background: #fff; font-size: 11px; }
  .chart .grid { stroke: #eef0f5; } .chart .axis { stroke: #59607a; } .chart .tick { fill: #59607a; }
  .chart .axis-label { fill: #1d2330; font-size: 12px; } .chart .legend text { fill: #1d2330; }
  #calls tbody tr.selected { background: #eef3ff; }
  #detail { border: 1px solid #c9d3ea; padding: .5rem 1rem 1rem; margin-top: 1rem; background: #fafbff; }
  #detail dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0; }
  #detail dt { color: #59607a; } #detail dd { margin: 0; overflow-wrap: anywhere; }
  #detail pre { background: #f1f3f8; padding: .5rem; overflow: auto; max-height: 16rem; white-space: pre-wrap; overflow-wrap: anywhere; }
  .warning { color: #a55b00; }
`
