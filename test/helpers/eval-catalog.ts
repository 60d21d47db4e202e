/**
 * The small catalog of the `catalog search eval` tests (test/contract/search-eval.test.ts,
 * test/cli/search-eval.test.ts), as the CSV files `attributes import` and `parts import` read.
 * `widget alpha` and `widget gamma` tie on every rule and score (names of one length, so the name
 * bonus ties too): part id order puts demo:1 first.
 */
export const EVAL_ATTRIBUTES = 'attribute_id,type,name.en,searchable,filterable\nkind,text,Kind,true,true\n';
export const EVAL_PARTS = [
  'part_id,name.en,attr:kind.en',
  'npm:react,react,library',
  'npm:react-dom,react-dom,library',
  'demo:1,widget alpha,gadget',
  'demo:2,widget gamma,gadget',
].join('\n');
