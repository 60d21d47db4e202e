// Generated parts of the search benchmarks (bench/compare.js, bench/disk.js, bench/pg-engine.js): the real device
// names of the PCI and USB ID repositories (../shared/data/catalog), the vendor as a searchable,
// filterable value; part i is the (i mod devices)-th device, copies numbered.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const DATA = join(here, '..', '..', 'shared', 'data', 'catalog');

/** Devices of pci.ids / usb.ids: [bus, vendor id, device id, device name, vendor name]. */
export function devices() {
  const out = [];
  for (const bus of ['pci', 'usb']) {
    let vendor = '';
    let vendorName = '';
    for (const line of readFileSync(join(DATA, `${bus}.ids`), 'latin1').split('\n')) {
      if (line.startsWith('#') || line.trim() === '') continue;
      let m = /^([0-9a-f]{4})\s+(.+)$/.exec(line);
      if (m) {
        vendor = m[1];
        vendorName = m[2];
        continue;
      }
      if (line.startsWith('C ')) {
        vendor = '';
        continue;
      }
      m = /^\t([0-9a-f]{4})\s+(.+)$/.exec(line);
      if (m && vendor) out.push([bus, vendor, m[1], m[2], vendorName]);
    }
  }
  return out;
}

export const ATTRIBUTES = [{ attribute_id: 'vendor', type: 'text', name: { en: 'Vendor' }, searchable: true, filterable: true }];

export function partOf(i, list) {
  const [bus, vendor, device, name, vendorName] = list[i % list.length];
  const copy = Math.floor(i / list.length);
  return {
    part_id: `${bus}:${vendor}:${device}${copy > 0 ? `:${copy}` : ''}`,
    name: { en: copy > 0 && copy % 3 === 0 ? `${name} rev ${copy}` : name },
    attributes: [{ attribute_id: 'vendor', values: [{ organization: '', value: { en: vendorName } }] }],
  };
}

