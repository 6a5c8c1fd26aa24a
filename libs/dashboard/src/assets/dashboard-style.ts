/** The dashboard's stylesheet, a static route like its script (no inline styles under the CSP). */
export const DASHBOARD_STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f6f7f9; }
header.top { display: flex; gap: 1.5em; align-items: center; padding: .6em 1.2em; background: #1d2330; }
header.top a { color: #fff; text-decoration: none; font-weight: 600; }
.live-state { margin-left: auto; color: #c9ced8; font-size: 12px; }
.live-state.on { color: #7ee2a8; }
main { padding: 1em 1.2em; }
h1 small, .id { color: #6b7385; font-size: 11px; font-family: ui-monospace, monospace; }
table { border-collapse: collapse; width: 100%; background: #fff; margin-bottom: 1.2em; }
th, td { text-align: left; padding: .35em .5em; border-bottom: 1px solid #e3e6eb; vertical-align: top; }
th { background: #eef0f4; font-weight: 600; font-size: 12px; }
td code { white-space: pre-wrap; word-break: break-all; }
.status { padding: .1em .45em; border-radius: 3px; background: #e3e6eb; font-weight: 600; }
.status-running, .status-waiting_on_tool { background: #d6ecff; }
.status-completed { background: #d3f5df; }
.status-failed, .status-cancelled { background: #f9d7d7; }
.status-paused, .status-waiting_on_human, .status-retrying, .status-verifying { background: #fff0c2; }
.stale, .fail { color: #c0141b; font-weight: 600; }
.pass { color: #1a7f3c; }
tr.retry { background: #fff6f6; }
dl.summary { display: grid; grid-template-columns: max-content 1fr; gap: .2em 1em; background: #fff; padding: .8em; }
dl.summary dt { color: #6b7385; }
dl.summary dd { margin: 0; }
.controls { display: flex; gap: .6em; margin: 1em 0; }
.controls button { padding: .4em 1.2em; font-weight: 600; cursor: pointer; }
.filters { display: flex; gap: 1em; align-items: center; margin-bottom: .6em; }
.counts a { margin-right: .8em; }
.note, .empty { color: #6b7385; }
.banner.archived { background: #eef1f6; border-left: 4px solid #6b7385; padding: .6em .8em; margin: 1em 0; }
ul.messages .kind { font-weight: 600; }
.artifacts { display: flex; flex-wrap: wrap; gap: .3em; margin-bottom: .3em; }
a.artifact img { display: block; max-width: 160px; max-height: 100px; border: 1px solid #d0d5dd; background: #fff; }
a.artifact.file { font-size: 12px; }
tr.artifact td { background: #fbfcfe; }
tr.artifact a.artifact img { margin-bottom: .2em; }
`;
