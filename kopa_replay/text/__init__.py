"""The foundation's text module: Korean numbers and units, normalized forms, field concepts, hashed n-grams.

One implementation of each, for every floor above (env, graph, synth, filter, bench):

* :mod:`.numbers` — a number written whole (:func:`read_number`: digit groups, signs, full-width digits;
  :func:`as_number`, the platforms' values read for arithmetic);
* :mod:`.mentions` — numbers in running text: Korean numerals and units 십/백/천/만/억/조 (:func:`korean_value`),
  every reading a question writes (:func:`number_mentions`), one reading per number an answer states with its
  unit (:func:`parse_numbers`);
* :mod:`.keys` — canonical keys of values and questions (``N:``, ``D:``, ``C:``, ``T:``) and disclosure;
* :mod:`.normalize` — folded text forms (:func:`text_form`, :func:`normalize_question`) and scripts;
* :mod:`.concepts` — what a parameter or field means: synonym groups and shapes (:func:`concepts_of`);
* :mod:`.embed` — hashed character n-gram TF-IDF rows and their cosine (:class:`HashedNgramEmbedder`).

It imports nothing of kopa_replay but :mod:`kopa_replay.errors` and :mod:`kopa_replay.util`. Pure: no I/O.
"""

from kopa_replay.util import lazy_exports

# loaded on first use: importing the package stays cheap (numpy only with the embedder)
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "kopa_replay.text.numbers": (
            "UNITS",
            "as_number",
            "canonical_decimal",
            "read_number",
        ),
        "kopa_replay.text.mentions": (
            "NumberMention",
            "korean_numbers",
            "korean_value",
            "number_mentions",
            "parse_numbers",
        ),
        "kopa_replay.text.keys": (
            "comma_codes",
            "date_key",
            "date_spans",
            "decimal_places",
            "discloses_number",
            "informative",
            "mentions_text",
            "number_key",
            "question_keys",
            "value_keys",
        ),
        "kopa_replay.text.normalize": (
            "fold",
            "foreign_script",
            "has_hangul",
            "normalize_question",
            "masked_question",
            "text_form",
        ),
        "kopa_replay.text.concepts": (
            "CONCEPTS",
            "IDENTIFIER",
            "NAME",
            "STRENGTH",
            "TEMPORAL",
            "Concept",
            "Signature",
            "concepts_of",
            "description_text",
            "name_key",
            "names_an_entity",
            "shape_of",
            "shapes_compatible",
            "target_fillers",
        ),
        "kopa_replay.text.embed": (
            "HashedNgramEmbedder",
            "SparseRows",
            "sparse_cosine",
            "words",
        ),
    },
)

__all__ = [
    "CONCEPTS",
    "IDENTIFIER",
    "NAME",
    "STRENGTH",
    "TEMPORAL",
    "UNITS",
    "Concept",
    "HashedNgramEmbedder",
    "NumberMention",
    "Signature",
    "SparseRows",
    "as_number",
    "canonical_decimal",
    "comma_codes",
    "concepts_of",
    "date_key",
    "date_spans",
    "decimal_places",
    "description_text",
    "discloses_number",
    "fold",
    "foreign_script",
    "has_hangul",
    "informative",
    "korean_numbers",
    "korean_value",
    "mentions_text",
    "name_key",
    "names_an_entity",
    "normalize_question",
    "masked_question",
    "number_key",
    "number_mentions",
    "parse_numbers",
    "question_keys",
    "read_number",
    "shape_of",
    "shapes_compatible",
    "sparse_cosine",
    "target_fillers",
    "text_form",
    "value_keys",
    "words",
]
