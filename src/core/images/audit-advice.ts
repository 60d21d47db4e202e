/**
 * The advice of the image audit (docs/api.md "Image audit"): what a contributor can do about a
 * reference image, from its measurable properties and from what the audit's photo-like queries
 * found. Pure; the thresholds are the documented ones.
 */
import type { AuditCondition, AuditConditionResult } from '../../api/image-schemas.js';

/** Below this many pixels on its longer side a reference has too little detail for a photo to match. */
export const MIN_REFERENCE_SIDE = 300;
/** Below this grey-level standard deviation a reference is (nearly) blank. */
export const MIN_REFERENCE_CONTRAST = 8;
/** Below this many keypoints the photo index has little to match a photo against. */
export const MIN_REFERENCE_KEYPOINTS = 60;

/** What a condition's failure asks of the contributor. */
const CONDITION_ADVICE: Record<AuditCondition, string> = {
  copy: 'a digital copy of it',
  closer: 'a closer photo of the part',
  rotated: 'a photo of the part turned',
  angle: 'a photo taken at an angle',
  covered: 'a photo with part of it covered (a hand, another part)',
  blur: 'a slightly blurred photo',
  low_light: 'a photo in dim light',
  bench: 'a photo of the part lying on a cluttered bench',
};

/** What the advice reads of one audited reference. */
export interface AdviceInput {
  width: number;
  height: number;
  contrast: number;
  /** null: unknown (no local features stored). */
  keypoints: number | null;
  conditions: readonly AuditConditionResult[];
}

/**
 * The advice for one reference, most useful first; empty when every condition found its part
 * first and nothing about the reference is weak. A weak property is named even when every
 * condition found the part: the audit's photos are made from the reference itself, so a 32 px
 * reference matches photos made from it, while a real photo shows detail the reference lacks.
 */
export function auditAdvice(input: AdviceInput): string[] {
  const advice: string[] = [];
  const long = Math.max(input.width, input.height);
  if (input.contrast < MIN_REFERENCE_CONTRAST) {
    advice.push(`this reference is nearly blank (grey-level contrast ${input.contrast.toFixed(1)}, under ${MIN_REFERENCE_CONTRAST}): add a photo of the part itself, in focus, on a plain background`);
  }
  // Another part winning even a copy is the likeliest cause of every other miss, so it comes first.
  const twin = input.conditions.find((c) => c.condition === 'copy')?.top;
  if (twin !== undefined) {
    advice.push(`part '${twin.part_id}' is found first for a copy of this reference (its image '${twin.image_id}' scores ${twin.score.toFixed(2)}): if it is the same picture, keep it on one part; if the parts differ, add a photo showing what tells them apart`);
  }
  if (long < MIN_REFERENCE_SIDE) {
    const size = input.width === input.height ? `${input.width} px wide` : `${input.width} × ${input.height} px`;
    advice.push(`this reference is ${size}: add a photo of at least ${MIN_REFERENCE_SIDE} px on a plain background`);
  }
  if (input.keypoints !== null && input.keypoints < MIN_REFERENCE_KEYPOINTS && input.contrast >= MIN_REFERENCE_CONTRAST) {
    advice.push(`this reference has few distinct details (${input.keypoints} keypoints, under ${MIN_REFERENCE_KEYPOINTS}): add a sharp photo showing the part's edges, texture or print, filling most of the frame`);
  }
  const taken = (conditions: readonly AuditConditionResult[]): string => {
    const others = [...new Set(conditions.flatMap((c) => (c.top ? [`'${c.top.part_id}'`] : [])))];
    return others.length > 0 ? `; ${others.join(', ')} ${others.length === 1 ? 'was' : 'were'} found first instead` : '';
  };
  // A reference found on white but lost on a bench: its keypoints are mostly its outline, whose
  // descriptors compare the part with its background, and the bench replaces that background.
  const bench = input.conditions.find((c) => c.condition === 'bench' && c.rank !== 1);
  if (twin === undefined && bench !== undefined) {
    advice.push(`not found first for ${CONDITION_ADVICE.bench}${taken([bench])}: what the photo index knows of it is mostly its outline against a plain background, which a bench replaces; add a photo of the part where it is used (on a bench, in a tray) showing its surface`);
  }
  const missed = input.conditions.filter((c) => c.rank !== 1 && c.condition !== 'bench');
  if (twin === undefined && missed.length > 0) {
    advice.push(`not found first for ${missed.map((c) => CONDITION_ADVICE[c.condition]).join(', ')}${taken(missed)}: add more reference photos of the part as people photograph it (at an angle, closer, in ordinary light)`);
  }
  return advice;
}
