#!/usr/bin/env bash
# Issue 10 closing evidence: every defect the issue quotes, reproduced as the issue describes it,
# against one or two built checkouts (npm ci && npm run build done in each).
#
#   bench/issue10-before-after.sh <checkout>                 one row per defect: defect | command | result
#   bench/issue10-before-after.sh <before> <after>           the markdown before/after table
#
# A result is "exit N, <what happened>", the phrase read from the command's own output. Data: a slice
# of the USB ID repository (../shared/data/catalog/usb.ids, about 1,600 parts) and a few stamp photos
# (../shared/data/images), written to a temporary directory. Needs bash, node, util-linux `script`
# (a real pseudo-terminal), timeout. Run it with `nice -n 10`; it takes a minute or two a checkout.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SHARED="$(cd "$HERE/../../shared/data" 2>/dev/null && pwd || true)"
[ -d "$SHARED" ] || { echo "../shared/data not found beside the checkout" >&2; exit 2; }
ANSI=$'\e''\[[0-9;?]*[A-Za-z]'

# ---------------------------------------------------------------- data

# make_data <dir>: attributes.csv, parts.csv (USB devices; every Ethernet device plus the first
# 1,500), big.csv (3,000 rows for interruptions), relations.csv, images/ and images.csv.
make_data() {
  local d=$1
  mkdir -p "$d/images"
  printf '%s\n' 'attribute_id,type,name.en,searchable,filterable,visibility,org_visibility,per_org_values,display_order' \
    'vendor,text,Vendor,true,true,factoryWorker,parent,false,1' \
    'vendor_id,text,Vendor ID,true,true,factoryWorker,parent,false,2' >"$d/attributes.csv"
  awk -v OFS=, '
    function q(s) { gsub(/"/, "\"\"", s); return "\"" s "\"" }
    /^# List of known device classes/ { exit }
    /^[0-9a-f][0-9a-f][0-9a-f][0-9a-f]  / { vid = substr($0, 1, 4); vname = substr($0, 7); next }
    /^\t[0-9a-f][0-9a-f][0-9a-f][0-9a-f]  / {
      did = substr($0, 2, 4); name = substr($0, 8); n++
      if (n <= 1500 || tolower(name) ~ /ethernet/) print "usb:" vid ":" did, q(name), q(vname), vid
    }' "$SHARED/catalog/usb.ids" | sort -u -t, -k1,1 >"$d/rows"
  { echo 'part_id,name.en,attr:vendor.en,attr:vendor_id.en'; cat "$d/rows"; } >"$d/parts.csv"
  { echo 'part_id,name.en'; for i in $(seq -w 1 3000); do echo "big$i,Part $i"; done; } >"$d/big.csv"
  # Relations: each device is equivalent to the next one of the same vendor.
  { echo 'anchor_part_id,related_part_id,type,source'
    awk -F, '{ v = substr($1, 5, 4); if (v == pv) print p "," $1 ",equivalent,ingested"; pv = v; p = $1 }' "$d/rows"; } >"$d/relations.csv"
  local i=0 f
  echo 'image_id,part_id,info,file' >"$d/images.csv"
  for f in frog-1 penguin_with_spider abalone 747 001penny; do
    cp "$SHARED/images/$f.jpg" "$d/images/$f.jpg"
    echo "img-$f,$(sed -n "$((i * 100 + 1))p" "$d/rows" | cut -d, -f1),searchable display,$f.jpg" >>"$d/images.csv"
    i=$((i + 1))
  done
  cp "$SHARED/images/tiger.jpg" "$d/tiger.jpg"
}

# ---------------------------------------------------------------- helpers

# cat_ <args>: the checkout's CLI in a pipe.
cat_() { CI=1 node "$CO/bin/catalog.js" "$@"; }
# on_tty <cols> <args>: the CLI on a pseudo-terminal <cols> wide; prints the terminal's text, returns its exit code.
on_tty() {
  local cols=$1; shift
  local cmd="stty cols $cols rows 50; exec $(printf '%q ' node "$CO/bin/catalog.js" "$@")"
  local out rc
  out=$(env -u CI -u NO_COLOR TERM=xterm-256color script -qec "$cmd" /dev/null </dev/null); rc=$?
  printf '%s\n' "$out" | sed -e "s/$ANSI//g" -e 's/\r//g'
  return $rc
}
first_line() { sed -e "s/$ANSI//g" -e 's/\r//g' | grep -v '^\s*$' | head -n 1 | cut -c1-90; }
unknown() { grep -qiE "unknown (option|command)|too many arguments|error: (unknown|too many)" "$1"; }
lines() { grep -c '' "$1" 2>/dev/null || echo 0; }
# fresh <name>: a new data directory path (not created).
fresh() { echo "$W/dd-$1"; }
# wait_for <file> <pid>: until the file exists or the process has ended.
wait_for() { while [ ! -e "$1" ] && kill -0 "$2" 2>/dev/null; do sleep 0.01; done; }
# row <defect> <command> <result>
row() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$ROWS"; }

# A catalog with the USB slice and images, built once per checkout.
load_main() {
  DD=$(fresh main)
  cat_ --data-dir "$DD" attributes import "$W/attributes.csv" >/dev/null 2>&1
  cat_ --data-dir "$DD" parts import "$W/parts.csv" >/dev/null 2>&1
  cat_ --data-dir "$DD" relations import "$W/relations.csv" >/dev/null 2>&1
  cat_ --data-dir "$DD" images upload "$W/images.csv" --dir "$W/images" >/dev/null 2>&1
  NPARTS=$(($(lines "$W/parts.csv") - 1))
}

# ---------------------------------------------------------------- recovery

# An import of big.csv into data directory A interrupted (SIGINT) once a batch is recorded.
interrupt_import() {
  A=$(fresh resumeA)
  rm -f "$W/big.csv.checkpoint.json" "$W"/big.errors.*
  CI=1 node "$CO/bin/catalog.js" --data-dir "$A" parts import "$W/big.csv" --batch-size 20 >"$W/int.out" 2>"$W/int.err" &
  local pid=$!
  wait_for "$W/big.csv.checkpoint.json" $pid
  kill -INT $pid 2>/dev/null
  wait $pid; INT_RC=$?
  cp "$W/big.csv.checkpoint.json" "$W/ckpt.saved" 2>/dev/null
  INT_IN_A=$(cat_ --data-dir "$A" parts list -o tsv 2>/dev/null | tail -n +2 | grep -c .)
}

check_resume_other_dir() {
  local B r c n
  B=$(fresh resumeB)
  cp "$W/ckpt.saved" "$W/big.csv.checkpoint.json" 2>/dev/null
  cat_ --data-dir "$B" parts import "$W/big.csv" --batch-size 20 --resume >"$W/r.out" 2>"$W/r.err"; r=$?
  n=$(cat_ --data-dir "$B" parts list -o tsv 2>/dev/null | tail -n +2 | grep -c .)
  if [ $r -eq 0 ]; then c="other dir got $n of 3000 parts, batches skipped silently"
  else c="$(first_line <"$W/r.err"); other dir: $n parts"; fi
  [ -e "$W/big.csv.checkpoint.json" ] && c="$c; checkpoint kept" || c="$c; checkpoint deleted"
  row '--resume against another data directory (3,000-row import interrupted after a batch, then resumed with another --data-dir)' \
      'catalog --data-dir B parts import big.csv --batch-size 20 --resume' "exit $r, $c"
}

check_resume_hint() {
  local hint r c n
  cp "$W/ckpt.saved" "$W/big.csv.checkpoint.json" 2>/dev/null
  hint=$(grep -A1 'resume with' "$W/int.err" | tail -n 1 | sed 's/^ *//')
  mkdir -p "$W/bin" "$W/cwd"; ln -sf "$CO/bin/catalog.js" "$W/bin/catalog"
  (cd "$W/cwd" && CI=1 PATH="$W/bin:$PATH" sh -c "$hint" >"$W/h.out" 2>"$W/h.err"); r=$?
  n=$(cat_ --data-dir "$A" parts list -o tsv 2>/dev/null | tail -n +2 | grep -c .)
  case "$hint" in *--data-dir*--batch-size*|*--batch-size*--data-dir*) c="hint repeats --data-dir and --batch-size";; *) c="hint lacks --data-dir/--batch-size";; esac
  c="$c; run as printed: $n of 3000 parts in the real data dir"
  [ -d "$W/cwd/.catalog" ] && c="$c, a new ./.catalog was made"
  [ -e "$W/big.csv.checkpoint.json" ] && c="$c, checkpoint kept" || c="$c, checkpoint gone"
  row 'The resume hint repeats the options in force (run exactly as printed, through sh -c)' \
      'catalog --data-dir A parts import big.csv --batch-size 20, SIGINT; sh -c "<the printed resume command>"' \
      "exit $r, printed \`$(printf '%s' "$hint" | sed -e "s#$W/##g")\`; $c"
}

check_ctrl_c_tty() {
  local D fifo r out c
  D=$(fresh tty)
  rm -f "$W/big.csv.checkpoint.json" "$W"/big.errors.*
  fifo="$W/tty.in"; rm -f "$fifo"; mkfifo "$fifo"
  local cmd="stty cols 120 rows 40; exec $(printf '%q ' node "$CO/bin/catalog.js" --data-dir "$D" parts import "$W/big.csv" --batch-size 20)"
  env -u CI -u NO_COLOR TERM=xterm-256color script -qfec "$cmd" /dev/null <"$fifo" >"$W/tty.out" 2>&1 &
  local pid=$!
  exec 7>"$fifo"
  wait_for "$W/big.csv.checkpoint.json" $pid
  printf '\003' >&7
  wait $pid; r=$?
  exec 7>&-
  out=$(sed -e "s/$ANSI//g" -e 's/\r//g' "$W/tty.out")
  if grep -q 'interrupted: resume with' <<<"$out"; then c="summary \"$(grep -o 'parts import: [^,]*created' <<<"$out" | head -n 1)…\" and the resume command printed"
  else c="no summary, no resume command"; fi
  [ -e "$W/big.csv.checkpoint.json" ] && c="$c; checkpoint on disk" || c="$c; no checkpoint"
  [ -z "$(find "$W" "$D" -name '*.tmp' 2>/dev/null)" ] || c="$c; stray .tmp files"
  row 'Ctrl-C on a terminal (util-linux `script` pty, ^C typed once a batch is recorded)' \
      'script -qfec "catalog --data-dir D parts import big.csv --batch-size 20" /dev/null, then ^C' "exit $r, $c"
}

# ---------------------------------------------------------------- round trips

# mask: the values the service sets itself.
mask() { sed -E -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z/<t>/g' -e 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/<u>/g'; }

check_roundtrip() {
  local fmt=$1 C r worst=0 res="" noun
  C=$(fresh "rt-$fmt")
  mkdir -p "$W/rt-$fmt"
  for noun in attributes parts relations; do
    cat_ --data-dir "$DD" "$noun" list -o "$fmt" >"$W/rt-$fmt/$noun.$fmt" 2>"$W/rt.err"; r=$?
    if [ $r -ne 0 ]; then res="$res $noun: list exit $r ($(first_line <"$W/rt.err"));"; worst=$r; continue; fi
    cat_ --data-dir "$C" "$noun" import "$W/rt-$fmt/$noun.$fmt" >/dev/null 2>"$W/rt.err"; r=$?
    if [ $r -ne 0 ]; then res="$res $noun: import exit $r ($(first_line <"$W/rt.err" | cut -c1-60));"; worst=$r; continue; fi
    if cmp -s <(mask <"$W/rt-$fmt/$noun.$fmt") <(cat_ --data-dir "$C" "$noun" list -o "$fmt" 2>/dev/null | mask); then res="$res $noun identical;"
    else res="$res $noun differs;"; worst=9; fi
  done
  cat_ --data-dir "$DD" images export --dir "$W/rt-$fmt/img" --format "$fmt" >/dev/null 2>"$W/rt.err"; r=$?
  if [ $r -ne 0 ]; then res="$res images export: exit $r ($(first_line <"$W/rt.err" | cut -c1-50))"; worst=$r
  else
    cat_ --data-dir "$C" images upload "$W/rt-$fmt/img/images.$fmt" >/dev/null 2>"$W/rt.err"; r=$?
    cat_ --data-dir "$C" images export --dir "$W/rt-$fmt/img2" --format "$fmt" >/dev/null 2>&1
    if [ $r -eq 0 ] && cmp -s <(mask <"$W/rt-$fmt/img/images.$fmt") <(mask <"$W/rt-$fmt/img2/images.$fmt") && diff -rq "$W/rt-$fmt/img/files" "$W/rt-$fmt/img2/files" >/dev/null; then res="$res images (files + manifest) identical"
    else res="$res images: upload exit $r or differ"; worst=9; fi
  fi
  [ $worst -eq 9 ] && worst=0
  row "Round trip \`-o $fmt\` of every resource into an empty catalog, byte-identical (timestamps, UUIDs masked)" \
      "catalog <noun> list -o $fmt > f; catalog --data-dir EMPTY <noun> import f; list again; cmp (images: images export --dir --format $fmt, images upload)" \
      "worst exit $worst,${res%;}"
}

check_csv_spaces() {
  local C r out c=""
  C=$(fresh spaces)
  cat_ --data-dir "$C" attributes import "$W/attributes.csv" >/dev/null 2>&1
  printf 'part_id,name.en,attr:vendor.en\n" lead",Lead,x\n"trail ",Trail,x\n"\xc2\xa0nbsp",Nbsp,x\nspace,Space," "\n' >"$W/spaces.csv"
  cat_ --data-dir "$C" parts import "$W/spaces.csv" >/dev/null 2>"$W/s.err"; r=$?
  out=$(cat_ --data-dir "$C" parts list -o csv --fields part_id,attr:vendor.en 2>&1)
  grep -q '^" lead"' <<<"$out" && c="$c\" lead\" kept;" || c="$c\" lead\" came back as $(grep -o '^"\?lead' <<<"$out" | head -n1);"
  grep -q '^"trail "' <<<"$out" && c="$c \"trail \" kept;" || c="$c \"trail \" lost its space;"
  grep -q $'^"\xc2\xa0nbsp"\|^\xc2\xa0nbsp' <<<"$out" && c="$c NBSP kept;" || c="$c NBSP lost;"
  grep -q '^space," "' <<<"$out" && c="$c value \" \" kept" || c="$c value \" \" disappeared"
  row 'CSV keeps leading/trailing spaces, NBSP and a value " "' \
      'catalog parts import spaces.csv; catalog parts list -o csv --fields part_id,attr:vendor.en' "exit $r, $c"
}

check_attr_at_dot() {
  local C r r2 c
  C=$(fresh atdot)
  printf '%s\n' 'attribute_id,type,name.en,searchable,filterable,visibility,org_visibility,per_org_values,display_order' \
    'mail@host.example,text,At and dots,true,false,factoryWorker,parent,false,' >"$W/atdot-attrs.csv"
  cat_ --data-dir "$C" attributes import "$W/atdot-attrs.csv" >/dev/null 2>&1
  printf '{"part_id":"p1","name":{"en":"One"},"attributes":[{"attribute_id":"mail@host.example","values":[{"organization":"","value":{"en":"a@b.c"}}]}]}\n' >"$W/atdot.ndjson"
  cat_ --data-dir "$C" parts import "$W/atdot.ndjson" >/dev/null 2>&1
  cat_ --data-dir "$C" parts list -o csv >"$W/atdot.csv" 2>"$W/atdot.err"; r=$?
  if [ $r -ne 0 ]; then c="$(first_line <"$W/atdot.err" | cut -c1-70)"
  else
    cat_ --data-dir "$(fresh atdot2)" attributes import "$W/atdot-attrs.csv" >/dev/null 2>&1
    cat_ --data-dir "$(fresh atdot2)" parts import "$W/atdot.csv" >/dev/null 2>"$W/atdot.err"; r2=$?
    c="header $(head -n1 "$W/atdot.csv" | grep -o 'attr:mail[^,]*' | head -n1); re-import exit $r2"
  fi
  row 'An attribute id containing @ and . exports to CSV and imports again' \
      'catalog parts list -o csv (attribute mail@host.example); catalog --data-dir EMPTY parts import that' "exit $r, $c"
}

# ---------------------------------------------------------------- output

check_table_width() {
  local out r w seps json sw
  out=$(on_tty 100 --data-dir "$DD" parts list); r=$?
  w=$(grep '^[┌│├└]' <<<"$out" | LC_ALL=C.UTF-8 wc -L)
  seps=$(grep -c '^├' <<<"$out")
  json=$(grep -c '{"attribute_id"' <<<"$out")
  sw=$(on_tty 100 --data-dir "$DD" parts show usb:0403:6001 | LC_ALL=C.UTF-8 wc -L)
  row 'Tables fit a 100-column terminal, values as `id: value` text, no line between rows' \
      'script: stty cols 100; catalog parts list (and parts show usb:0403:6001)' \
      "exit $r, widest table line $w columns (parts show: $sw), $seps row separators, $json cells of raw JSON"
}

check_list_one_page() {
  local out r rows hint s e
  s=$(date +%s.%N)
  out=$(on_tty 100 --data-dir "$DD" parts list); r=$?
  e=$(date +%s.%N)
  rows=$(grep -c '^│ usb:' <<<"$out")
  grep -q 'next page' <<<"$out" && hint=", says how to get the next page" || hint=", no paging hint"
  row '`parts list` on a terminal shows one page' 'script: catalog parts list' \
      "exit $r, $rows of $NPARTS rows drawn in $(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.1f", e - s }') s$hint"
}

check_search_unquoted() {
  local r c
  cat_ --data-dir "$DD" search gigabit ethernet -o tsv >"$W/su.out" 2>"$W/su.err"; r=$?
  if [ $r -eq 0 ]; then c="$(($(lines "$W/su.out") - 1)) hits"; else c="$(first_line <"$W/su.err")"; fi
  row '`catalog search gigabit ethernet` without quotes' 'catalog search gigabit ethernet' "exit $r, $c"
}

check_fields() {
  local r1 r2 c1 c2 out
  out=$(cat_ --data-dir "$DD" parts get usb:0403:6001 --fields part_id,name.en -o json 2>"$W/f.err"); r1=$?
  if [ $r1 -ne 0 ]; then c1="json: $(first_line <"$W/f.err")"
  else c1="json keys: $(node -e 'const v=JSON.parse(require("fs").readFileSync(0,"utf8"));const o=Array.isArray(v)?v[0]:v;console.log(Object.keys(o).join(" "))' <<<"$out")"; fi
  out=$(cat_ --data-dir "$DD" parts get usb:0403:6001 --fields part_id,name.en -o table 2>"$W/f.err"); r2=$?
  if [ $r2 -ne 0 ]; then c2="table: exit $r2, $(first_line <"$W/f.err")"
  else c2="table: exit 0, columns $(grep -m1 'part_id' <<<"$out" | tr -s ' │' ' ' | sed 's/^ //;s/ $//')"; fi
  row '`--fields` in json; nested names (`name.en`) in a table' \
      'catalog parts get usb:0403:6001 --fields part_id,name.en -o json (and -o table)' "exit $r1, $c1; $c2"
}

# help_tree <path...>: every command path of the tree, depth first.
help_tree() {
  local sub
  echo "$*"
  for sub in $(cat_ "$@" --help 2>/dev/null | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }' | grep -v '^help$'); do
    help_tree "$@" "$sub"
  done
}
check_help() {
  local total=0 ex=0 o=0 p
  while read -r p; do
    total=$((total + 1))
    # shellcheck disable=SC2086
    local h; h=$(cat_ $p --help 2>&1)
    grep -qi 'example' <<<"$h" && ex=$((ex + 1))
    grep -q -- '--fields' <<<"$h" && grep -q -- '-o, --output' <<<"$h" && o=$((o + 1))
  done < <(help_tree)
  row 'Every command'"'"'s help shows its options (incl. -o, --fields) and an example' \
      'catalog <every command> --help' "exit 0, $ex of $total helps have an example, $o show -o and --fields"
}

check_summary_inline() {
  local C r c
  C=$(fresh inline)
  cat_ --data-dir "$C" attributes import "$W/attributes.csv" >/dev/null 2>&1
  { echo 'part_id,name.en'; for i in 1 2 3 4 5 6 7 8; do echo "bad$i,"; done; } >"$W/bad.csv"
  cat_ --data-dir "$C" parts import "$W/bad.csv" >/dev/null 2>"$W/bad.err"; r=$?
  c="summary: $(head -n1 "$W/bad.err"); $(grep -c '^  .*line [0-9]' "$W/bad.err") errors shown inline"
  row 'The import summary shows the first errors inline' 'catalog parts import bad.csv (8 rows without a name)' "exit $r, $c"
}

check_unknown_header() {
  local C r c
  C=$(fresh header)
  printf 'partid,nme.en,colour\nx,y,z\nw,v,u\n' >"$W/header.csv"
  cat_ --data-dir "$C" parts import "$W/header.csv" >/dev/null 2>"$W/hd.err"; r=$?
  if grep -q 'did you mean' "$W/hd.err"; then c="one line: $(first_line <"$W/hd.err" | cut -c1-80)…"
  else c="$(lines "$W/hd.err") stderr lines, no did-you-mean: $(first_line <"$W/hd.err" | cut -c1-60)"; fi
  ls "$W"/header.errors.* >/dev/null 2>&1 && c="$c; errors file written"
  row 'A header naming unknown columns: once, before any row, did-you-mean, exit 2' \
      'catalog parts import header.csv (header partid,nme.en,colour)' "exit $r, $c"
}

check_errors_order() {
  local C r order i
  C=$(fresh order)
  cat_ --data-dir "$C" attributes import "$W/attributes.csv" >/dev/null 2>&1
  printf 'part_id,name.en\nq1,One\nq2,Two\n' >"$W/q.csv"
  cat_ --data-dir "$C" parts import "$W/q.csv" >/dev/null 2>&1
  # Lines alternate a row the server refuses (unknown part) and one refused while reading (no file).
  { echo 'image_id,part_id,info,file'
    for i in 1 2 3 4 5 6 7 8 9 10; do
      if [ $((i % 2)) -eq 1 ]; then echo "o$i,no-such-part-$i,searchable,frog-1.jpg"; else echo "o$i,q1,searchable,missing-$i.jpg"; fi
    done; } >"$W/order.csv"
  cat_ --data-dir "$C" images upload "$W/order.csv" --dir "$W/images" --concurrency 4 >/dev/null 2>"$W/o.err"; r=$?
  order=$(tail -n +2 "$W/order.errors.csv" 2>/dev/null | grep -o '^o[0-9]*' | tr -d o | paste -sd' ')
  [ "$order" = "1 2 3 4 5 6 7 8 9 10" ] && order="in input order ($order)" || order="order: $order"
  row 'The errors file is in input line order' \
      'catalog images upload order.csv --concurrency 4 (odd lines: unknown part; even lines: missing file)' "exit $r, $order"
}

check_relations_dry_run() {
  local C r1 r2 d e
  C=$(fresh reldry)
  cat_ --data-dir "$C" attributes import "$W/attributes.csv" >/dev/null 2>&1
  cat_ --data-dir "$C" parts import "$W/parts.csv" >/dev/null 2>&1
  { echo 'anchor_part_id,related_part_id,type,source'
    echo 'nope1,nope2,duplicate,ingested'
    tail -n +2 "$W/relations.csv" | head -n 3
    echo 'usb:0403:6001,ghost,substitute,ingested'; } >"$W/rel.csv"
  cat_ --data-dir "$C" relations import "$W/rel.csv" --dry-run >/dev/null 2>"$W/d.err"; r1=$?
  cat_ --data-dir "$C" relations import "$W/rel.csv" >/dev/null 2>"$W/e.err"; r2=$?
  d=$(grep -v '^ ' "$W/d.err" | grep -m1 -E 'rejected|would' | cut -c1-70)
  e=$(grep -m1 'rejected' "$W/e.err" | cut -c1-70)
  row '`relations import --dry-run` counts match a real run (2 of 5 rows name missing parts)' \
      'catalog relations import rel.csv --dry-run; then without --dry-run' "dry run exit $r1: \"$d\"; real exit $r2: \"$e\""
}

check_missing_dir() {
  local M r c
  M=$(fresh missing)
  cat_ --data-dir "$M" parts list >/dev/null 2>"$W/m.err"; r=$?
  [ $r -eq 0 ] && c="empty list" || c="$(first_line <"$W/m.err")"
  [ -e "$M" ] && c="$c; the directory was created" || c="$c; nothing created"
  row 'A read of a data directory that does not exist' 'catalog --data-dir MISSING parts list' "exit $r, $(sed "s#$M#MISSING#g" <<<"$c")"
}

check_proc_nope() {
  local r c s e
  s=$(date +%s)
  timeout 10 env CI=1 node "$CO/bin/catalog.js" --data-dir /proc/nope attributes import "$W/attributes.csv" >/dev/null 2>"$W/p.err"; r=$?
  e=$(date +%s)
  [ $r -eq 124 ] && c="still running after 10 s, killed by timeout" || c="after $((e - s)) s: $(first_line <"$W/p.err" | cut -c1-70)"
  row 'A data directory that cannot be created fails at once' 'timeout 10 catalog --data-dir /proc/nope attributes import attributes.csv' "exit $r, $c"
}

check_moved() {
  local C r c
  C=$(fresh moved)
  printf '{"part_id":"p1","name":{"en":"One"}}\n{"part_id":"p2","name":{"en":"Two"}}\n' >"$W/p12.ndjson"
  cat_ --data-dir "$C" parts import "$W/p12.ndjson" >/dev/null 2>&1
  printf 'image_id,part_id,info,file\nshot,p1,searchable display,frog-1.jpg\n' >"$W/m1.csv"
  printf 'image_id,part_id,info,file\nshot,p2,searchable display,frog-1.jpg\n' >"$W/m2.csv"
  cat_ --data-dir "$C" images upload "$W/m1.csv" --dir "$W/images" >/dev/null 2>&1
  cat_ --data-dir "$C" images upload "$W/m2.csv" --dir "$W/images" >/dev/null 2>"$W/mv.err"; r=$?
  c=$(grep -m1 -E 'created|updated' "$W/mv.err" | cut -c1-80)
  row 'An upload that moves an image to another part says so' 'catalog images upload m2.csv (image shot: p1 → p2)' "exit $r, \"$c\""
}

check_remote_html() {
  local port pid r c
  cat >"$W/html.js" <<'EOF'
const http = require('node:http');
const s = http.createServer((q, r) => { r.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }); r.end('<!DOCTYPE html>\n<html><body>\n' + '<p>hello</p>\n'.repeat(40) + '</body></html>\n'); });
s.listen(0, '127.0.0.1', () => console.log(s.address().port));
EOF
  node "$W/html.js" >"$W/html.port" & pid=$!
  while [ ! -s "$W/html.port" ]; do sleep 0.05; done
  port=$(cat "$W/html.port")
  CATALOG_TOKEN=cat_x cat_ --remote "http://127.0.0.1:$port" parts list >/dev/null 2>"$W/rh.err"; r=$?
  kill $pid; wait $pid 2>/dev/null
  c="$(lines "$W/rh.err") stderr lines: $(first_line <"$W/rh.err" | sed "s#127.0.0.1:$port#HOST#g" | cut -c1-80)"
  row '`--remote` at a server that is not a catalog (an HTML page)' 'CATALOG_TOKEN=x catalog --remote http://HOST parts list' "exit $r, $c"
}

check_image_stdin() {
  local r c
  cat_ --data-dir "$DD" search --image - -o tsv <"$W/images/abalone.jpg" >"$W/is.out" 2>"$W/is.err"; r=$?
  if [ $r -eq 0 ]; then c="$(($(lines "$W/is.out") - 1)) hits, first $(sed -n 2p "$W/is.out" | cut -f1)"; else c="$(first_line <"$W/is.err" | cut -c1-70)"; fi
  row '`search --image -` reads the photo from stdin' 'catalog search --image - < abalone.jpg' "exit $r, $c"
}

check_image_score() {
  local r c
  cat_ --data-dir "$DD" search --image "$W/images/abalone.jpg" -o tsv >"$W/sc.out" 2>"$W/sc.err"; r=$?
  if head -n1 "$W/sc.out" | grep -qw score; then
    c="columns $(head -n1 "$W/sc.out" | tr '\t' ' '); first hit $(node -e 'const [h,r]=require("fs").readFileSync(0,"utf8").split("\n").map(l=>l.split("\t"));console.log(r[0]+" score "+r[h.indexOf("score")])' <"$W/sc.out")"
  else c="columns $(head -n1 "$W/sc.out" | tr '\t' ' '): no score"; fi
  row 'Image search: each hit shows its similarity score' 'catalog search --image abalone.jpg -o tsv' "exit $r, $c"
}

check_image_nomatch() {
  local r c n
  cat_ --data-dir "$DD" search --image "$W/tiger.jpg" -o tsv >"$W/nm.out" 2>"$W/nm.err"; r=$?
  n=$(($(lines "$W/nm.out") - 1)); [ $n -lt 0 ] && n=0
  c="$n hits listed"
  grep -q 'no part matches' "$W/nm.err" && c="$c; \"$(grep -m1 -o 'no part matches[^:;]*' "$W/nm.err" | cut -c1-75)\""
  row 'A photo of something not in the catalog says no part matches (5 photographed parts; query tiger.jpg)' \
      'catalog search --image tiger.jpg' "exit $r, $c"
}

check_kill_server() {
  local D tok port line r c pids
  D=$(fresh serve)
  tok=$(cat_ --data-dir "$D" tokens create --name admin --role catalogAdmin 2>/dev/null)
  port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  # The tour's own serve line, from this checkout's README, on a free port.
  line=$(grep -m1 -E '^(npx catalog|\./bin/catalog\.js) serve ' "$CO/README.md" | sed -E -e 's/ *#.*$//' -e "s/--port [0-9]+/--port $port/" -e 's/--access-log [^ ]+/--access-log "$W\/serve.log"/')
  cat >"$W/tour.sh" <<EOF
cd "$CO"
export CATALOG_DATA_DIR="$D" CI=1 W="$W"
${line%&} >"$W/serve.out" 2>"$W/serve.err" &
for i in \$(seq 100); do CATALOG_TOKEN=$tok node bin/catalog.js --remote http://127.0.0.1:$port maintenance status >/dev/null 2>&1 && break; sleep 0.1; done
kill \$!
sleep 1
if CATALOG_TOKEN=$tok node bin/catalog.js --remote http://127.0.0.1:$port maintenance status >/dev/null 2>&1; then echo STILL-LISTENING; fi
EOF
  out=$(sh "$W/tour.sh" 2>&1); r=$?
  if grep -q STILL-LISTENING <<<"$out"; then c="the server still answers after kill \$!"; else c="the server stopped"; fi
  # Whatever is left of it (this run's data directory only).
  pids=$(pgrep -f -- "serve --port $port" || true); [ -n "$pids" ] && kill $pids 2>/dev/null
  row 'The README tour'"'"'s server stops with `kill $!`' 'the serve line of the checkout'"'"'s README tour, in sh, then kill $!' \
      "exit $r, $c (started as \`$(sed -e "s/--port $port/--port PORT/" -e 's/"$W\/serve.log"/serve.log/' <<<"$line")\`)"
}

check_access_log() {
  local D tok port r c pid
  D=$(fresh alog)
  tok=$(cat_ --data-dir "$D" tokens create --name admin --role catalogAdmin 2>/dev/null)
  port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  CI=1 node "$CO/bin/catalog.js" --data-dir "$D" serve --port "$port" --access-log "$W/access.log" >/dev/null 2>"$W/al.err" & pid=$!
  for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; CATALOG_TOKEN=$tok cat_ --remote "http://127.0.0.1:$port" attributes list >/dev/null 2>&1 && break; sleep 0.1; done
  if kill -0 $pid 2>/dev/null; then kill $pid; wait $pid; r=0; c="log file: $(lines "$W/access.log") lines, $(grep -c '"POST' "$W/al.err") on stderr"
  else wait $pid; r=$?; c="$(first_line <"$W/al.err")"; fi
  row '`serve --access-log <file>`' 'catalog serve --port PORT --access-log access.log' "exit $r, $c"
}

# ---------------------------------------------------------------- driver

# run_all <checkout> <rows file>
run_all() {
  CO=$(cd "$1" && pwd); ROWS=$2; : >"$ROWS"
  [ -f "$CO/dist/cli/main.js" ] || { echo "$CO is not built (npm run build)" >&2; exit 2; }
  W=$(mktemp -d "${TMPDIR:-/tmp}/issue10.XXXXXX")
  export HOME="$W/home" XDG_CONFIG_HOME="$W/home/.config"; mkdir -p "$HOME"
  unset CATALOG_DATA_DIR CATALOG_URL CATALOG_TOKEN CATALOG_PROFILE
  make_data "$W"
  load_main
  interrupt_import
  check_resume_other_dir
  check_resume_hint
  check_ctrl_c_tty
  for f in csv tsv json; do check_roundtrip $f; done
  check_csv_spaces
  check_attr_at_dot
  check_table_width
  check_list_one_page
  check_search_unquoted
  check_fields
  check_help
  check_summary_inline
  check_unknown_header
  check_errors_order
  check_relations_dry_run
  check_missing_dir
  check_proc_nope
  check_moved
  check_remote_html
  check_image_stdin
  check_image_score
  check_image_nomatch
  check_kill_server
  check_access_log
  rm -rf "$W"
}

if [ $# -eq 1 ]; then
  run_all "$1" /dev/stdout
elif [ $# -eq 2 ]; then
  T=$(mktemp -d); run_all "$1" "$T/before"; run_all "$2" "$T/after"
  echo '| # | defect | command | before | after |'
  echo '|---|---|---|---|---|'
  paste -d'\t' <(cut -f1,2 "$T/before") <(cut -f3 "$T/before") <(cut -f3 "$T/after") |
    awk -F'\t' '{ for (i = 1; i <= NF; i++) gsub(/\|/, "\\|", $i); printf "| %d | %s | `%s` | %s | %s |\n", NR, $1, $2, $3, $4 }'
  rm -rf "$T"
else
  echo "usage: $0 <checkout> [<after checkout>]" >&2; exit 2
fi
