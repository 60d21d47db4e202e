#!/usr/bin/env node
// Derives the demo fixtures (fixtures/demo/) from ../shared/data: the PCI ID repository as parts and
// Tux Paint stamp photos as parts with reference/display images. Deterministic; run again to refresh.
// Usage: node scripts/make-demo-fixtures.js [--images 120]
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const shared = join(root, '..', 'shared', 'data');
const out = join(root, 'fixtures', 'demo');
const imageCount = Number(process.argv[process.argv.indexOf('--images') + 1]) || 120;

const csvCell = (v) => (/[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
const csvLine = (cells) => cells.map((c) => csvCell(String(c ?? ''))).join(',');

// --- PCI: vendors, devices, and the class names of the C section.
const lines = readFileSync(join(shared, 'catalog', 'pci.ids'), 'utf8').split('\n');
const devices = [];
const subclassNames = new Map(); // "02 00" -> "Ethernet controller"
let vendor;
let inClasses = false;
let classId;
for (const line of lines) {
  if (line.startsWith('#') || line.trim() === '') continue;
  if (line.startsWith('C ')) {
    inClasses = true;
    classId = line.slice(2, 4);
    continue;
  }
  if (inClasses) {
    const m = /^\t([0-9a-f]{2}) {2}(.+)$/.exec(line);
    if (m) subclassNames.set(`${classId} ${m[1]}`, m[2]);
    continue;
  }
  const v = /^([0-9a-f]{4}) {2}(.+)$/.exec(line);
  if (v) {
    vendor = { id: v[1], name: v[2] };
    continue;
  }
  const d = /^\t([0-9a-f]{4}) {2}(.+)$/.exec(line);
  if (d && vendor) devices.push({ vendor, id: d[1], name: d[2] });
}

// pci.ids does not link devices to classes: the class is derived from the device name, using the
// repository's own class names. First matching rule wins.
const CLASS_RULES = [
  [/ethernet|gigabit|10gbe|network connection|\bnic\b/i, '02 00'],
  [/wireless|wi-?fi|802\.11|wlan/i, '02 80'],
  [/vga|geforce|radeon|quadro|graphics|gpu/i, '03 00'],
  [/audio|hda\b|sound/i, '04 03'],
  [/usb|xhci|ehci|ohci|uhci/i, '0c 03'],
  [/sata|ahci/i, '01 06'],
  [/nvme|nvm express|non-volatile/i, '01 08'],
  [/dram|memory controller/i, '05 00'],
  [/host bridge/i, '06 00'],
  [/isa bridge|lpc/i, '06 01'],
  [/raid/i, '01 04'],
  [/scsi|sas\b/i, '01 07'],
  [/ide\b|pata/i, '01 01'],
  [/pci express|pcie|root port|root complex|bridge/i, '06 04'],
  [/smbus/i, '0c 05'],
  [/serial|uart/i, '07 00'],
  [/crypt/i, '10 80'],
];
function deviceClass(name) {
  for (const [re, key] of CLASS_RULES) if (re.test(name)) return subclassNames.get(key) ?? 'Unclassified device';
  return 'Unclassified device';
}

mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'attributes.csv'), [
  'attribute_id,type,name.en,name.de,searchable,filterable,visibility,org_visibility,labels,per_org_values,default_value.en,display_order',
  'vendor,text,Vendor,Hersteller,true,true,factoryWorker,parent,manufacturer_name,false,,1',
  'device_id,text,Device ID,Geräte-ID,true,true,factoryWorker,parent,manufacturer_part_number,false,,2',
  'vendor_id,text,Vendor ID,Hersteller-ID,true,true,factoryWorker,parent,identifier,false,,3',
  'class,enum,Device class,Geräteklasse,true,true,factoryWorker,parent,description,false,,4',
  'category,enum,Category,Kategorie,true,true,factoryWorker,parent,description,false,,5',
  'unit_cost,text,Unit cost,Stückkosten,false,false,admin,parent,,false,,6',
  'stock_bin,text,Stock bin,Lagerplatz,true,true,factoryWorker,sub,sku,true,not stocked,7',
].join('\n') + '\n');

const partRows = [csvLine(['part_id', 'name.en', 'attr:vendor.en', 'attr:vendor_id.en', 'attr:device_id.en', 'attr:class.en', 'attr:category.en', 'attr:stock_bin@acme.en'])];
for (const [i, d] of devices.entries()) {
  partRows.push(csvLine([`pci:${d.vendor.id}:${d.id}`, d.name, d.vendor.name, d.vendor.id, d.id, deviceClass(d.name), 'computer>pci device', i % 50 === 0 ? `R${i % 97}-${i % 13}` : '']));
}

// --- Photos: one part per stamp, with its photo as searchable display image.
const index = readFileSync(join(shared, 'images', 'index.csv'), 'utf8').trim().split('\n').slice(1).map((l) => {
  const [file, category] = l.split(',');
  return { file, category };
});
const step = Math.max(1, Math.floor(index.length / imageCount));
const chosen = index.filter((_, i) => i % step === 0).slice(0, imageCount);
rmSync(join(out, 'images'), { recursive: true, force: true });
mkdirSync(join(out, 'images'), { recursive: true });
const manifest = [csvLine(['image_id', 'part_id', 'info', 'file'])];
for (const [i, img] of chosen.entries()) {
  const base = img.file.replace(/\.jpg$/, '');
  const partId = `stamp:${base}`;
  const title = base.replace(/[-_]+/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase());
  partRows.push(csvLine([partId, title, '', '', '', '', img.category, '']));
  copyFileSync(join(shared, 'images', img.file), join(out, 'images', img.file));
  manifest.push(csvLine([base, partId, i % 3 === 0 ? `searchable display weight=${i % 4}` : 'searchable display', img.file]));
}
writeFileSync(join(out, 'parts.csv'), `${partRows.join('\n')}\n`);
writeFileSync(join(out, 'images.csv'), `${manifest.join('\n')}\n`);

// --- Relations: the same device name under one vendor -> duplicate; the same name under two
// vendors -> equivalent (relabelled chips); consecutive revisions "X" / "X rev 2"-style are left out.
const byName = new Map();
for (const d of devices) {
  const key = d.name.toLowerCase();
  if (/^device [0-9a-f]{4}$/.test(key)) continue;
  byName.set(key, [...(byName.get(key) ?? []), d]);
}
const relations = [csvLine(['anchor_part_id', 'related_part_id', 'type', 'source'])];
for (const group of byName.values()) {
  if (group.length < 2) continue;
  for (let i = 1; i < Math.min(group.length, 4); i++) {
    const a = group[0];
    const b = group[i];
    relations.push(csvLine([`pci:${a.vendor.id}:${a.id}`, `pci:${b.vendor.id}:${b.id}`, a.vendor.id === b.vendor.id ? 'duplicate' : 'equivalent', 'ingested']));
  }
}
writeFileSync(join(out, 'relations.csv'), `${relations.join('\n')}\n`);
console.log(`fixtures/demo: ${devices.length} PCI parts, ${chosen.length} photo parts and images, ${relations.length - 1} relations`);
