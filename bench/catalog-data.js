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


/** Model numbers: two letters and five digits (26 × 26 × 100,000 = 67,600,000 distinct). */
const MODEL_SPACE = 26 * 26 * 100_000;
/** A multiplier prime to MODEL_SPACE (2^7 · 5^5 · 13^2): i -> model number is one-to-one below MODEL_SPACE. */
const MODEL_STEP = 48_271;

/**
 * Part i's manufacturer part number (e.g. `GW94171`): unique for i < 67,600,000 and scattered, not
 * ascending, so every part adds a term of its own to the dictionary as a real catalog does.
 */
export function modelNumber(i) {
  const x = (i * MODEL_STEP + 12_345) % MODEL_SPACE;
  const letters = Math.floor(x / 100_000);
  return `${String.fromCharCode(65 + Math.floor(letters / 26))}${String.fromCharCode(65 + (letters % 26))}${String(x % 100_000).padStart(5, '0')}`;
}

/**
 * Part i as a real catalog's part: {@link partOf}'s part (same part id, same vendor: an attribute
 * value that repeats across the vendor's parts, as real attribute values do) whose name ends in its
 * own model number (`… Ethernet Controller GW94171`).
 */
export function numberedPartOf(i, list) {
  const p = partOf(i, list);
  const [, , , name] = list[i % list.length];
  return { ...p, name: { en: `${name} ${modelNumber(i)}` } };
}
