/**
 * Field conditions of a query photo for tests: the photo seen at an angle (a homography), and part
 * of it covered by a hand. They are the image audit's own (src/adapters/images/photo-conditions.ts),
 * so tests and `catalog images audit` query with the same photos; the bench's seeded variants are
 * bench/photo-field.js. Deterministic.
 */
export { atAngle, coveredByHand } from '../../src/adapters/images/photo-conditions.js';
