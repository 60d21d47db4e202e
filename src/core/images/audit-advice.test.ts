import { describe, expect, it } from 'vitest';
import type { AuditConditionResult } from '../../api/image-schemas.js';
import { auditAdvice } from './audit-advice.js';

const found = (condition: AuditConditionResult['condition']): AuditConditionResult => ({ condition, rank: 1, score: 0.9 });
const good = { width: 800, height: 600, contrast: 50, keypoints: 400, conditions: [found('copy'), found('angle')] };

describe('auditAdvice', () => {
  it('has nothing to say about a large, detailed reference found first everywhere', () => {
    expect(auditAdvice(good)).toEqual([]);
  });

  it('names a small reference by its size, a blank one by its contrast, a plain one by its keypoints', () => {
    expect(auditAdvice({ ...good, width: 32, height: 32 })).toEqual(['this reference is 32 px wide: add a photo of at least 300 px on a plain background']);
    expect(auditAdvice({ ...good, width: 200, height: 95 })).toEqual(['this reference is 200 × 95 px: add a photo of at least 300 px on a plain background']);
    expect(auditAdvice({ ...good, contrast: 0.4, keypoints: 0 })).toEqual(['this reference is nearly blank (grey-level contrast 0.4, under 8): add a photo of the part itself, in focus, on a plain background']);
    expect(auditAdvice({ ...good, keypoints: 12 })[0]).toMatch(/^this reference has few distinct details \(12 keypoints, under 60\)/);
    expect(auditAdvice({ ...good, keypoints: null })).toEqual([]);
  });

  it('names the part that wins a copy of the reference, else the conditions it was missed in and who won them', () => {
    const twin = { condition: 'copy' as const, rank: 2, score: 0.99, top: { part_id: 'p2', image_id: 'i2', score: 1 } };
    expect(auditAdvice({ ...good, conditions: [twin, found('angle')] })).toEqual([
      "part 'p2' is found first for a copy of this reference (its image 'i2' scores 1.00): if it is the same picture, keep it on one part; if the parts differ, add a photo showing what tells them apart",
    ]);
    // Before the size: the other part explains every miss.
    expect(auditAdvice({ ...good, width: 200, height: 95, conditions: [twin] }).map((a) => a.slice(0, 20))).toEqual(["part 'p2' is found f", 'this reference is 20']);
    const missed = [found('copy'), { condition: 'angle' as const, rank: 3, score: 0.2, top: { part_id: 'p9', image_id: 'i9', score: 0.6 } }, { condition: 'low_light' as const, rank: null, score: null }];
    expect(auditAdvice({ ...good, conditions: missed })).toEqual([
      "not found first for a photo taken at an angle, a photo in dim light; 'p9' was found first instead: add more reference photos of the part as people photograph it (at an angle, closer, in ordinary light)",
    ]);
  });

  it('a reference lost only on a bench is told why (its outline) and what photo to add', () => {
    const lost = { condition: 'bench' as const, rank: null, score: null };
    const advice = auditAdvice({ ...good, conditions: [found('copy'), found('angle'), lost] });
    expect(advice).toEqual([
      'not found first for a photo of the part lying on a cluttered bench: what the photo index knows of it is mostly its outline against a plain background, which a bench replaces; add a photo of the part where it is used (on a bench, in a tray) showing its surface',
    ]);
    // With other misses, the bench has its own line and the rest theirs.
    const both = auditAdvice({ ...good, conditions: [found('copy'), { condition: 'blur' as const, rank: 2, score: 0.3, top: { part_id: 'p4', image_id: 'i4', score: 0.7 } }, lost] });
    expect(both.map((a) => a.slice(0, 60))).toEqual(['not found first for a photo of the part lying on a cluttered', 'not found first for a slightly blurred photo; \'p4\' was found']);
  });
});
