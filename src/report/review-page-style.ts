/** The review page's inline stylesheet (system fonts only: nothing is fetched). */
export const REVIEW_PAGE_STYLE = `
:root{--fg:#1d2433;--muted:#5b6577;--line:#d9dee7;--bg:#f6f7f9;--card:#fff;--add:#e3f6e8;--add-fg:#17692f;--del:#fde8e8;--del-fg:#a11d1d;--accent:#2f5bd3}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
.top{background:#1d2433;color:#fff;padding:14px 24px}.top h1{margin:0;font-size:20px}.headline{margin:4px 0 0;color:#d7ddea;font-size:15px}
main{max-width:1100px;margin:0 auto;padding:16px 24px 48px}
h2{font-size:17px;margin:24px 0 8px}
.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(260px,1fr));gap:4px 16px;margin:0}
.meta{margin:14px 0;background:var(--card);border:1px solid var(--line);border-radius:8px;padding:8px 12px}.meta summary{cursor:pointer;color:var(--muted)}.meta[open] summary{margin-bottom:8px}
.facts div{display:flex;gap:8px;min-width:0}.facts dt{color:var(--muted);min-width:70px;flex:none}.facts dd{margin:0;overflow-wrap:anywhere;min-width:0}
.refusals{background:var(--del);border:1px solid #e3a1a1;border-left:6px solid #d03b3b;border-radius:8px;padding:8px 14px;margin:8px 0;color:var(--del-fg)}.refusals h2{margin:0 0 4px;font-size:17px}.refusals ul{margin:0;padding-left:18px}.refusals li{margin:4px 0}
.refusals .refusal{display:block}.refusals .fix{display:block;color:var(--fg);font-weight:600}
.resume code,#resume-command{background:#eef1f6;border-radius:4px;padding:2px 6px;font:13px ui-monospace,Menlo,Consolas,monospace}
.resume{background:#fff6db;border:1px solid #f0d37a;border-radius:8px;padding:8px 12px}
.counts{list-style:none;display:flex;flex-wrap:wrap;gap:8px;padding:0;margin:14px 0}
.counts li{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:6px 12px}
.counts .count{font-size:20px;font-weight:600}.counts .label{color:var(--muted)}
.warnings{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:8px 8px 8px 28px}
.n-error{color:var(--del-fg)}.n-warning{color:#8a5a00}.n-note{color:var(--muted)}
.partial{background:#fff6db;border:1px solid #f0d37a;border-radius:8px;padding:8px 12px}
.apply code,.key{background:#eef1f6;border-radius:4px;padding:2px 6px;font:13px ui-monospace,Menlo,Consolas,monospace;overflow-wrap:anywhere}
.filters{display:flex;flex-wrap:wrap;gap:6px;align-items:center;position:sticky;top:0;background:var(--bg);padding:8px 0;z-index:1}
.filters button{border:1px solid var(--line);background:var(--card);border-radius:16px;padding:4px 12px;cursor:pointer;font:inherit}
.filters button[aria-pressed="true"]{background:var(--accent);border-color:var(--accent);color:#fff}
.filters input{flex:1;min-width:200px;padding:6px 10px;border:1px solid var(--line);border-radius:6px;font:inherit}
.shown{color:var(--muted);margin:4px 0}
.card{background:var(--card);border:1px solid var(--line);border-left:4px solid var(--line);border-radius:8px;padding:10px 14px;margin:8px 0}
.card>header{display:flex;flex-wrap:wrap;align-items:baseline;gap:8px}
.card h3{margin:0;font-size:15px;word-break:break-word}
.badge{font-size:12px;text-transform:uppercase;letter-spacing:.04em;border-radius:4px;padding:1px 6px;background:#eef1f6;color:var(--muted)}
.a-create{border-left-color:#2e9d4f}.a-create .badge{background:var(--add);color:var(--add-fg)}
.a-update,.a-restore,.a-send{border-left-color:var(--accent)}
.a-delete,.a-invalid,.a-failed{border-left-color:#d03b3b}.a-delete .badge,.a-invalid .badge{background:var(--del);color:var(--del-fg)}
.a-hide{border-left-color:#c98a12}
.thumbs{display:flex;flex-wrap:wrap;gap:6px;margin:8px 0}
.thumbs img{width:72px;height:72px;object-fit:cover;border:1px solid var(--line);border-radius:6px;background:#eef1f6;font-size:10px;overflow:hidden;color:var(--muted)}
.image-text{font-size:12px;color:var(--muted);overflow-wrap:anywhere}
.card.refused{border-left-color:#d03b3b;background:#fff7f7}.refused-badge{background:#d03b3b!important;color:#fff!important}.refused-reason{margin:6px 0 0;color:var(--del-fg);font-weight:600}
.o-done{background:var(--add);color:var(--add-fg)}.o-failed{background:var(--del);color:var(--del-fg)}.o-pending{background:#fff6db;color:#8a5a00}
.totals{list-style:none;display:flex;flex-wrap:wrap;gap:8px;padding:0;margin:8px 0}.totals li{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:6px 12px}.totals .count{font-size:18px;font-weight:600}.totals .label{color:var(--muted)}
table.rows{background:var(--card)}table.rows th{padding:0}.sort{all:unset;cursor:pointer;display:block;padding:4px 8px;color:var(--muted)}.sort[aria-sort="ascending"]::after{content:" \\25B2"}.sort[aria-sort="descending"]::after{content:" \\25BC"}
table.rows td.c-outcome{font-size:12px}
.pager{display:flex;gap:8px;justify-content:center;margin:10px 0}.pager button{border:1px solid var(--line);background:var(--card);border-radius:6px;padding:4px 14px;cursor:pointer;font:inherit}
table{border-collapse:collapse;width:100%;margin-top:8px;font-size:13px;table-layout:fixed}
.card th:first-child{width:32%}
th,td{text-align:left;border-bottom:1px solid var(--line);padding:4px 8px;vertical-align:top;overflow-wrap:anywhere;white-space:pre-wrap}
th{color:var(--muted);font-weight:500}
td.amount{white-space:nowrap;overflow-wrap:normal}
td.c-before{color:var(--del-fg)}td.c-after{color:var(--add-fg)}td.c-after::before{content:"\\2192  ";color:var(--muted)}
tr.t-added td{background:var(--add);color:var(--add-fg)}tr.t-removed td{background:var(--del);color:var(--del-fg);text-decoration:line-through}
.preview{background:#f1f5ee;border-radius:6px;padding:8px 10px;white-space:pre-wrap;font:13px/1.4 system-ui,sans-serif;margin:8px 0 0}
.notes{margin:6px 0 0;padding-left:20px}
.invalid table{background:var(--card)}
.more[hidden]{display:none}.more{display:block;margin:16px auto;padding:8px 20px;border:1px solid var(--line);border-radius:6px;background:var(--card);cursor:pointer;font:inherit}
`;
