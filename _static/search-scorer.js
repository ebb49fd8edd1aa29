// Sphinx's search scorer (html_search_scorer in _config.yml). A search for an idea ("certificate",
// "slice") lists the chapters that teach it before the API reference that implements it: every
// result on an API page scores below every result in the book's prose, and keeps its order among
// the API results. The other weights are Sphinx's defaults, which this object replaces.
var Scorer = {
  score: (result) => {
    const [docname, , , , score] = result;
    return docname.startsWith("book/api/") ? score - 1000 : score;
  },
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: {0: 15, 1: 5, 2: -5},
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
};
