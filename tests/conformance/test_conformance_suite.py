"""The conformance suite itself: it passes on the reference, and each seeded defect fails it
with a message that points at the defect."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

# Imported once here, so that pytester's in-process runs (which unload what they import)
# share one hypothesis module with the plugin that pytest already loaded.
import filterproof.conformance.suite  # noqa: F401
from filterproof.adapters.reference import ReferenceAdapter
from filterproof.conformance.defects import DEFECTS, SilentlyShort
from filterproof.conformance.worlds import scale_corpus
from filterproof.evaluation.runner import Settings, evaluate, index
from filterproof.evaluation.scoring import by_strategy
from filterproof.evaluation.truth import Prepared, prepare
from filterproof.fixtures import shipped
from filterproof.fixtures.lab import load_lab
from filterproof.policy import is_eligible, problem
from support.paths import FIXTURES
from support.suite import suite_tests

pytest_plugins = ["pytester"]

SUITE = ["-p", "no:cacheprovider", "--pyargs", "filterproof.conformance", "--conformance-examples", "40",
         "--hypothesis-seed", "1"]
LEAK = "returned but NOT eligible (a leak)"

# (defect, the test it must fail (-k), the FAILED line, a piece of the message)
POINTERS = [
    ("IgnoresValidUntil", "test_date_boundaries", "test_date_boundaries?valid_until is exclusive*",
     "valid_until is exclusive (tenant 'acme' groups ('engineering',) as of 2026-09-08): "
     "returned but NOT eligible (a leak): dated: "),
    ("DropsOpenEnded", "test_date_boundaries", "test_date_boundaries?valid_until null is open-ended*",
     "eligible but NOT returned (missing): dated: {'tenant': 'acme', 'logical_id': 'doc', 'revision': 1, "
     "'status': 'active', 'groups': ['engineering'], 'valid_from': '2026-01-01', 'valid_until': None}"),
    ("GroupsStringAsList", "test_every_malformed", "test_every_malformed_document_fails_closed",
     "returned but NOT eligible (a leak): m-string-groups: "),
    ("FirstGroupOnly", "exact_strings", "test_groups_are_exact_strings",
     "diagnosis, groups: two missing; a probe holding only its groups ['finance', 'engineering'] is missing too "
     "[hint: a document is admitted when any of its groups is one of the principal's"),
    ("GroupsListBoundAsText", "test_date_boundaries", "test_date_boundaries?valid_from is inclusive*",
     "diagnosis, base: the probe {'tenant': 'acme', 'logical_id': '!probe-base', "),
    ("DropsTenantClause", "test_tenant_isolation", "test_tenant_isolation",
     "tenant 'acme' (tenant 'acme' groups ('engineering',) as of 2026-09-08): returned but NOT eligible (a leak): "),
    ("CachesAcrossRevocation", "test_revoke_a_group", "test_revoke_a_group",
     "the revoked group still admits the document"),
    ("LazyRevisionFlag", "test_change_of_the_active_map_alone", "test_change_of_the_active_map_alone",
     "the map alone moved acme/p to revision 1: returned but NOT eligible (a leak): r2: "),
    ("SilentlyShort", "test_selective_filter_is_not_short", "test_selective_filter_is_not_short?2?",
     "short result: 0 returned for K=2 with 2 eligible"),
    ("LexicalDates", "calendar_date", "test_what_is_not_a_calendar_date_fails_closed?year 0000?",
     "year 0000: valid_from '0000-01-01' (tenant 'acme' groups ('engineering',) as of 2026-09-08): "
     "returned but NOT eligible (a leak): misdated: "),
    ("LenientDates", "calendar_date", "test_what_is_not_a_calendar_date_fails_closed?a week date?",
     "a week date: valid_from '2026-W01-4' (tenant 'acme' groups ('engineering',) as of 2026-09-08): "
     "returned but NOT eligible (a leak): misdated: "),
    ("LocalTimeAsOf", "time_zone", "test_as_of_is_a_calendar_day_in_any_process_time_zone?UTC+14?",
     "under TZ=<+14>-14 (tenant 'acme' groups ('engineering',) as of 2026-09-08): returned but NOT eligible"),
    ("TimeOfDayAsOf", "not_a_calendar_date_is_refused", "test_an_as_of_that_is_not_a_calendar_date_is_refused",
     "DID NOT RAISE"),
    ("CaseFoldsIdentities", "unicode_forms", "test_case_accents_and_unicode_forms_are_distinct_identities",
     "tenant 'acme' (tenant 'acme' groups ('engineering',) as of 2026-09-08): returned but NOT eligible (a leak): t-"),
    ("NormalizesUnicode", "unicode_forms", "test_case_accents_and_unicode_forms_are_distinct_identities",
     "tenant 'ácme' (tenant 'ácme' groups ('engineering',) as of 2026-09-08): returned but NOT eligible (a leak): "),
    ("FoldsAccents", "unicode_forms", "test_case_accents_and_unicode_forms_are_distinct_identities",
     "tenant 'acme' (tenant 'acme' groups ('engineering',) as of 2026-09-08): returned but NOT eligible (a leak): t-"),
    ("TruncatesAtNul", "nul_characters", "test_nul_characters_fail_closed",
     "NUL in an identity (tenant 'acme' groups ('engineering',) as of 2026-09-08): returned but NOT eligible "
     "(a leak): nul-"),
    ("TenantByKeyPrefix", "slash", "test_a_slash_in_the_principal_tenant_is_not_a_path",
     "tenant 'acme/x' (tenant 'acme/x' groups ('engineering',) as of 2026-09-08): returned but NOT eligible "
     "(a leak): nested: "),
    # The twin catalogues, one defect per family at least.
    ("TrimsWhitespace", "identity_twins", "test_identity_twins?tenant?",
     f"[tenant whitespace, every key in the map] tenant '\u00c1cme' groups ('engineering',) as of 2026-09-08: {LEAK}: "
     "t11: {'tenant': '\u00c1cme\\u3000'"),
    ("FoldsCompatibilityForms", "identity_twins", "test_identity_twins?tenant?",
     f"[tenant unicode form, every key in the map] tenant '\u00c1cme' groups ('engineering',) as of 2026-09-08: "
     f"{LEAK}: t3: {{'tenant': 'A\\u0301cme'"),
    ("StripsIgnorables", "identity_twins", "test_identity_twins?tenant?",
     f"[tenant ignorable, every key in the map] tenant '\u00c1cme' groups ('engineering',) as of 2026-09-08: {LEAK}: "
     "t2: {'tenant': '\u00c1\\u200bcme'"),
    ("NocaseLogicalIds", "identity_twins", "test_identity_twins?logical_id?",
     f"[logical_id case, only the originals' keys in the map] tenant 'acme' groups ('engineering',) as of 2026-09-08: "
     f"{LEAK}: l2: {{'tenant': 'acme', 'logical_id': '\u00c1CME'"),
    ("CaseInsensitiveStatus", "identity_twins", "test_identity_twins?status?",
     f"[status case, every key in the map] tenant 'acme' groups ('engineering',) as of 2026-09-08: {LEAK}: "
     "s2: {'tenant': 'acme', 'logical_id': 's2', 'revision': 1, 'status': 'Active'"),
    ("EmptyMeansAny", "identity_twins", "test_identity_twins?tenant?",
     f"[tenant empty, every key in the map] tenant '' groups ('engineering',) as of 2026-09-08: {LEAK}: "),
    ("Int32Revisions", "revision_twins", "test_revision_twins",
     f"[revision widths, the map at every pair's first revision] tenant 'acme' groups ('engineering',) as of "
     f"2026-09-08: {LEAK}: r0b: {{'tenant': 'acme', 'logical_id': 'r0', 'revision': 4294967297"),
    ("Float64Revisions", "revision_twins", "test_revision_twins",
     f"{LEAK}: r6b: {{'tenant': 'acme', 'logical_id': 'r6', 'revision': 9007199254740993"),
    ("Float32Revisions", "revision_twins", "test_revision_twins",
     f"{LEAK}: r10b: {{'tenant': 'acme', 'logical_id': 'r10', 'revision': 16777217"),
    ("RevisionKeyPrefix", "revision_twins", "test_revision_twins",
     f"{LEAK}: r12b: {{'tenant': 'acme', 'logical_id': 'r12', 'revision': 10,"),
    ("EpochDayZeroIsOpen", "encodings", "test_date_boundaries_of_encodings",
     f"tenant 'acme' groups ('engineering',) as of 1970-01-01: {LEAK}: d3-2: "),
    ("Int32Seconds", "encodings", "test_date_boundaries_of_encodings",
     f"tenant 'acme' groups ('engineering',) as of 0001-01-01: {LEAK}: d2-0: "),
    ("EmptyWindowIsOpen", "encodings", "test_date_boundaries_of_encodings",
     "(d0-3 is an empty window (until = from = 0001-01-01)"),
    ("SentinelOpenEnd", "encodings", "test_date_boundaries_of_encodings",
     "tenant 'acme' groups ('engineering',) as of 9999-12-31: eligible but NOT returned (missing): d0-0: "),
    ("HashedGroups", "identity_twins", "test_identity_twins?group?",
     f"[group hash, every key in the map] tenant 'acme' groups ('plumless',) as of 2026-09-08: {LEAK}: "
     "g4: {'tenant': 'acme', 'logical_id': 'g4', 'revision': 1, 'status': 'active', 'groups': ['buckeroo']"),
    ("QuotedNamesAsColumns", "identity_twins", "test_identity_twins?tenant?",
     f"[tenant field and column names, every key in the map] tenant 'tenant' groups ('engineering',) as of "
     f"2026-09-08: {LEAK}: t0: "),
    ("JoinedMapKeys", "identity_twins", "test_identity_twins?logical_id?",
     "[logical_id composite keys, only the logical ids holding the separator] tenant 'acme:x' groups "
     f"('engineering',) as of 2026-09-08: {LEAK}: c1b: "),
    ("FirstWriteWidth", "identity_twins", "test_identity_twins?tenant?",
     "eligible but NOT returned (missing): t6: {'tenant': 'KIO\\u0308SK-STRASSE-\U0001f600-FIN'"),
    ("StrptimeDates", "encodings", "test_date_boundaries_of_encodings",
     f"{LEAK}: x13-from: {{'tenant': 'acme', 'logical_id': 'x13-from', 'revision': 1, 'status': 'active', "
     "'groups': ['engineering'], 'valid_from': ' 2026-08-09'}"),
    ("EncodesWithReplacement", "identity_twins", "test_identity_twins?tenant?",
     f"[tenant encoding errors, every key in the map] tenant '\u00c1cme\\ud800' groups ('engineering',) as of "
     f"2026-09-08: {LEAK}: t2: "),
    ("DecodesKeyPaths", "identity_twins", "test_identity_twins?logical_id?",
     "[logical_id url, only the originals' keys in the map] tenant 'acme' groups ('engineering',) as of "
     f"2026-09-08: {LEAK}: "),
    ("GroupBitmask", "identity_twins", "test_identity_twins?group?",
     "[group many values, every key in the map] tenant 'acme' groups ('g064',) as of 2026-09-08: eligible but "
     "NOT returned (missing): g64: "),
    ("AbsentTenantAsEmpty", "absent_is_not", "test_absent_is_not_a_value?tenant?",
     f"[tenant absent, every key in the map] tenant '' groups ('engineering',) as of 2026-09-08: {LEAK}: t-absent: "),
    ("FoldsKeyCase", "absent_is_not", "test_absent_is_not_a_value?tenant?",
     f"[tenant absent, every key in the map] tenant 'acme' groups ('engineering',) as of 2026-09-08: {LEAK}: te-key0: "
     "{'logical_id': 'doc', 'revision': 1, 'status': 'active', 'groups': ['engineering'], 'valid_from': "
     "'2026-01-01', 'Tenant': 'acme'}"),
    ("AnswersKPerSlice", "test_sizes", "test_sizes",
     "[group a principal in thousands, every key in the map] tenant 'acme' groups (2000 groups: 'dir-0000', "
     "'dir-0001', 'dir-0002', ..., 'dir-1999') as of 2026-09-08, k=2: returned ['p499', 'p1000', "),
    ("UnterminatedHexEscapes", "identity_twins", "test_identity_twins?tenant?",
     "[tenant astral, every key in the map] tenant 'Kio\\u0308sk-straße-\U0001f600-\\ufb01n' groups ('engineering',) "
     f"as of 2026-09-08: {LEAK}: t4: "),
    # The sizes.
    ("CapsPrincipalGroups", "test_sizes", "test_sizes",
     "[group a principal in thousands, every key in the map] tenant 'acme' groups (2000 groups: 'dir-0000', "
     "'dir-0001', 'dir-0002', ..., 'dir-1999') as of 2026-09-08: eligible but NOT returned (missing): p1000: "),
    ("BrokenByBigDocument", "test_sizes", "test_sizes",
     "[groups thousands on one document] writing 'huge' (a document in 10,000 groups) raised RuntimeError: "),
    ("DropsBigDocuments", "test_sizes", "test_sizes",
     "[groups thousands on one document] tenant 'acme' groups ('huge-00000',) as of 2026-09-08: eligible but NOT "
     "returned (missing): huge: "),
    ("RefusesTooEagerly", "test_sizes", "test_sizes",
     "[groups thousands on one document] refused 'held' (a document in 3,000 groups), which every store must hold"),
    ("ComparesPrefixes", "test_sizes", "test_sizes",
     f"groups ('7ZSkEor5MOyxJRPz0fVJVbdzmMmpY4Iu4dybsihZ'...'zhvFYCu1nHp4kWaV0gCOcZmMkxizjfuX8G8cO1EH' (20,000 "
     f"characters),) as of 2026-09-08: {LEAK}: group-twin: "),
    ("CapsActiveMap", "test_sizes", "test_sizes",
     "[an active map of 40,001 entries] tenant 'acme' groups ('engineering',) as of 2026-09-08: eligible but NOT "
     "returned (missing): last: "),
    ("LosesSecondKeySlice", "test_sizes", "test_sizes",
     "[an active map of 40,001 entries] tenant 'acme' groups ('engineering',) as of 2026-09-08: eligible but NOT "
     "returned (missing): middle: "),
    ("RaisesOnAFullSlice", "test_sizes", "test_sizes", "ValueError: 20000 revision keys in one filter"),
    ("RefusesLongMetadata", "test_sizes", "test_sizes",
     "[large metadata no clause reads] refused 'escaped-body' (a document with a 150,000-character field of quotes, "
     "backslashes, accents, newlines, controls and emoji (its JSON five times longer)), 'long-body' "),
    ("RefusalOutlivesTheDocument", "test_sizes", "test_sizes",
     "[a refused document's lifecycle] after update_metadata brought it within the limits (1 group): "
     "not_indexable() names ['huge'], which is within every limit"),
    ("BtreeRefusalOutlivesTheDocument", "test_sizes", "test_sizes",
     "[a refused document's lifecycle] after update_metadata brought it within the limits (an ordinary tenant): "
     "not_indexable() names ['huge'], which is within every limit"),
    ("GroupSlots", "identity_twins", "test_identity_twins?group?",
     "[group many on one document, every key in the map] tenant 'acme' groups ('h08',) as of 2026-09-08: eligible "
     "but NOT returned (missing): many: "),
    ("PacksRevisionsLoosely", "revision_twins", "test_revision_twins",
     f"{LEAK}: o0: {{'tenant': 'acme', 'logical_id': 'o0', 'revision': 9223372036854775808"),
    ("FlagsByIdentity", "revision_twins", "test_revision_twins",
     "[revision widths, the map the documents were written under (every pair's second revision)] tenant 'acme' "
     "groups ('engineering',) as of 2026-09-08: eligible but NOT returned (missing): r0b: "),
    ("KeepsFirstOfRepeats", "twice", "test_an_id_twice_in_one_upsert_keeps_the_last",
     "after upserting a1 twice in one call: eligible but NOT returned (missing): a1: "),
    ("ZoneMapWidenedOnUpsert", "both_ways", "test_every_field_updated_both_ways?valid_from?",
     "after update_metadata set valid_from to '2020-01-01' (the document alone in the store, written with "
     "'2027-01-01'): eligible but NOT returned (missing): d: "),
    # The generated sequences.
    ("FlagKeptOnUpdate", "generated_sequences", "test_generated_sequences_of_operations",
     "adapter.update_metadata('d"),
    ("FlagKeptWhenPairLeaves", "generated_sequences", "test_generated_sequences_of_operations",
     "fails; after each step the native filter is checked for 4 principals and unfiltered"),
    ("TombstoneRevives", "generated_sequences", "test_generated_sequences_of_operations",
     "adapter.delete(['d"),
    ("UpdateResurrects", "generated_sequences", "test_generated_sequences_of_operations",
     "then: unfiltered search returned ['d"),
    ("BatchUpdateUpserts", "generated_sequences", "test_generated_sequences_of_operations",
     "1. adapter.update_metadata_batch({'ghost': "),
    ("FlushesDeletesFirst", "generated_sequences", "test_generated_sequences_of_operations",
     "fails; after each step the native filter is checked for 4 principals and unfiltered"),
    ("OptimizeRestoresFlags", "generated_sequences", "test_generated_sequences_of_operations",
     "adapter.optimize()"),
    ("IndexLosesRowsAfterDelete", "generated_sequences", "test_generated_sequences_of_operations",
     "diagnosis, lost: d"),
    ("AppendsOnUpsert", "upsert_of_an_existing", "test_upsert_of_an_existing_id_replaces_it",
     "tenant acme after a1 moved to beta: returned but NOT eligible (a leak): a1: {'tenant': 'beta'"),
    ("RaisesOnUnknownDelete", "unknown_id", "test_deleting_an_unknown_id_is_ignored", "KeyError"),
    ("ResetKeepsGroupRows", "reset_forgets", "test_reset_forgets_every_field_of_what_it_dropped",
     f"a principal of 'restricted' only, after reset: {LEAK}: new0: "),
    ("BatchDropsEmptyAnswers", "interleaved", "test_batched_queries_of_interleaved_principals",
        "65 answers to a batch of 69 queries, of which 4 match nothing (at [32, 33, 34, 68])"),
    ("TruncatesLongVectors", "wrong_length", "test_a_vector_of_the_wrong_length_is_refused", "DID NOT RAISE"),
    ("DeletesOneSliceOnly", "past_a_thousand", "test_one_call_past_a_thousand_changes",
     "after one delete of 1,040 documents: the principal of groups 'g20' .. 'g25' read 10 documents it must not (a "
     "leak): bulk-1250 (deleted)"),
    ("UpdatesOneSliceOnly", "past_a_thousand", "test_one_call_past_a_thousand_changes",
     "after one update_many moving 1,040 documents to another group: the principal of groups 'g20' .. 'g25' read "
     "40 documents it must not (a leak): bulk-1251 (in group 'h25')"),
    ("FitsQueriesToTheIndex", "query_vector_of_the_wrong", "test_a_query_vector_of_the_wrong_length_is_refused",
     "DID NOT RAISE"),
    ("BatchZipsUnequal", "unequal_lengths", "test_a_batch_of_unequal_lengths_is_refused", "DID NOT RAISE"),
    ("DotProductScores", "cosine_for_vectors", "test_scores_are_cosine_for_vectors_of_any_length",
     "ranked [Hit(id='long'"),
    ("IdsReturnedEscaped", "ids_are_exact", "test_document_ids_are_exact_strings",
     "unfiltered: returned ids never written: 'Kio\\u0308sk-straße-\U0001f600-\\ufb01n\\\\0' (never written)"),
    ("NanCosineFirst", "degenerate", "test_degenerate_vectors_neither_lead_nor_leak",
     "K=1 filtered: zero scored nan (a cosine is a finite number in [-1, 1]); ranked [('zero', nan)]"),
    ("BatchUsesFirstFilter", "interleaved", "test_batched_queries_of_interleaved_principals",
     "query 1 of the batch (tenant 'beta' groups ('engineering',) as of 2026-09-07): "),
    ("BatchMasksWithoutDate", "interleaved", "test_batched_queries_of_interleaved_principals",
     f"query 8 of the batch (tenant 'acme' groups ('engineering',) as of 2026-09-09): {LEAK}: acme-ending: "),
    ("WindowedNearest", "test_scale_tier", "test_scale_tier", "queries short of min(K=10, eligible)"),
    ("OnePageMetadata", "test_scale_tier", "test_scale_tier", "recall@10 against the exact filtered top 10"),
    ("FixedCandidatePool", "test_scale_tier", "test_scale_tier", "queries short of min(K=100, eligible)"),
    ("IndexBuiltOnce", "test_scale_tier", "test_scale_tier", "[written last 52%, K=10, tenant 't0' groups "),
    ("StaleBitmapIndex", "test_scale_tier", "test_scale_tier", "after the changes near every query ("),
    ("BatchUpdateFirstPage", "test_scale_tier", "test_scale_tier",
     "after the changes near every query (114 granted, 108 revoked, 53 deleted, 53 superseded): leaks or duplicate "),
    ("OneRequestPerDocument", "test_scale_tier", "test_scale_tier",
     "scale tier, 5,000 documents stopped: writing documents took "),
    # Other clients.
    ("ReaderCachesResults", "in_this_process", "test_a_reader_in_this_process_sees_each_change",
     "[a reader in this process] after the writer's 'revoke a group' returned, a query the reader started "),
    ("ReaderRefreshesLate", "in_this_process", "test_a_reader_in_this_process_sees_each_change",
     f"(staleness_bound_s=0) answered as before: filtered (tenant 'acme' groups ('engineering',) as of 2026-09-08): "
     f"{LEAK}: revoked: "),
    # A write of several steps, read in between.
    ("AdmitsBeforeExcluding", "during_a_change", "test_a_reader_during_a_change_sees_one_state",
     "tenant 'acme' groups ('engineering',) as of 2026-09-08 read ['kept', 'moved', 'r1', 'r2'] (during a write): "),
    ("WritesFieldByField", "during_a_change", "test_a_reader_during_a_change_sees_one_state",
     "as of 2026-09-08 read ['moved'] (during a write): "),
    # An empty list in a call.
    ("DeletesAllOnNoIds", "write_of_nothing", "test_a_write_of_nothing_changes_nothing",
     "after delete([]), tenant 'acme' groups ('engineering',) as of 2026-09-08: eligible but NOT returned (missing): "
     "k: "),
    ("NoRevisionClauseForEmptyMap", "nothing_authoritative",
     "test_an_active_map_with_nothing_authoritative_admits_nothing",
     f"after asking with an empty active map, tenant 'acme' groups ('engineering',) as of 2026-09-08: {LEAK}: k: "),
    # A write aimed at one id.
    ("DeletesByLike", "aimed_at_one_id", "test_a_write_aimed_at_one_id_changes_that_document_only",
     "; the first call at fault, delete(['a_c']), also changed 'a.c' (an id a write may read as a pattern or a "
     "list: 'a.c'); 'a?c' (an id a write may read as a pattern or a list: 'a?c'); 'abc' (an id 'a_c' read as a "
     "pattern or a list selects)"),
    ("UpdatesByLike", "aimed_at_one_id", "test_a_write_aimed_at_one_id_changes_that_document_only",
     "after updating each out of the principal's groups, one call each (37 of 201 ids): "),
    ("DeletesByPrefix", "aimed_at_one_id", "test_a_write_aimed_at_one_id_changes_that_document_only",
     "; the first call at fault, delete(['Ácme']), also changed 'Ácme\\x00' (an id nul twin (NUL at the end) of "
     "'Ácme')"),
    # The caller's objects, changed after a write.
    ("KeepsCallersMetadata", "own_copy", "test_the_store_keeps_its_own_copy_of_what_it_was_given",
     "then the metadata dicts it gave upsert (and another document was written and deleted): tenant 'acme' groups "
     f"('engineering',) as of 2026-09-08: {LEAK}: c: "),
    ("KeepsCallersVectors", "own_copy", "test_the_store_keeps_its_own_copy_of_what_it_was_given",
     "after the caller changed, in place, the vector arrays it gave upsert (and another document was written and "
     "deleted): tenant 'acme' groups ('engineering',) as of 2026-09-08: 'a' scored 0.000 where the vector written "
     "scores 0.995"),
    # One client searched from several threads at once.
    ("KeepsFilterOnClient", "one_client", "test_one_client_searched_from_several_threads_answers_each_caller",
     "searched from 4 threads at once, one client answered callers otherwise than alone (another caller's filter "
     "or query): "),
    ("KeepsQueryOnClient", "one_client", "test_one_client_searched_from_several_threads_answers_each_caller",
     "otherwise (another caller's query): "),
    # One client written by one thread while others search it.
    ("CachesAnswers", "searched_while_written", "test_one_client_searched_while_written_answers_as_it_stands",
     "had returned; the store then admitted "),
    ("LocksSearchesOnly", "searched_while_written", "test_one_client_searched_while_written_answers_as_it_stands",
     "searches, made while another thread wrote through the same client, answered otherwise than the store stood: "),
    # One client written by two threads at once.
    ("UpdatesByRewrite", "two_threads_writing", "test_two_threads_writing_one_client_leave_one_order_of_their_writes",
     ": delete(['x']) and update_metadata('x', groups=['sales']), made at once by two threads of one client, left "
     "what neither order leaves: "),
    ("FlagsFromMapAsWriteBegan", "two_threads_writing",
     "test_two_threads_writing_one_client_leave_one_order_of_their_writes",
     ": set_active_revisions(acme/p at 3) and upsert of 'r3', made at once by two threads of one client, left what "
     "neither order leaves: "),
    ("RewritesFlagsInTwoSteps", "two_threads_writing",
     "test_two_threads_writing_one_client_leave_one_order_of_their_writes",
     ": set_active_revisions(acme/p at 2) and set_active_revisions(acme/p at 3), made at once by two threads of one "
     "client, left what neither order leaves: "),
    # Two clients of one store writing at once.
    ("LocksEachClientOnly", "two_clients_writing", "test_two_clients_writing_at_once_leave_one_order_of_their_writes",
     ": delete(['x']) and update_metadata('x', groups=['sales']), made at once by two clients, left what neither "
     "order leaves: "),
    ("UpdatesWhatItWrote", "two_clients_writing", "test_two_clients_writing_at_once_leave_one_order_of_their_writes",
     "after update_metadata('n1', groups=[]) through client 1 of two (both had read before it), the clients read "
     "what the store does not hold: "),
    ("ClampsToCountItRead", "two_clients_writing", "test_two_clients_writing_at_once_leave_one_order_of_their_writes",
     "after upsert of ['d', 'x', 'n1', 'n2', 'kept'] through client 2 of two (both had read before it), the clients "
     "read what the store does not hold: "),
    # Two processes writing one store at once.
    ("LocksOneProcessOnly", "two_processes_writing",
     "test_two_processes_writing_at_once_leave_one_order_of_their_writes",
     ", made at once by two processes, left what neither order leaves: "),
]

# (defect, its option, a piece of the scale tier's message, a piece it must not hold): each bounded
# pool up to half the default corpus fails the tier, at the level built to catch it.
SCALE_POINTERS = [
    ("OnePageMetadata", "page=1000", "recall@10 against the exact filtered top 10: ", None),
    ("OnePageMetadata", "page=2400", "; worst: [written last ", None),
    ("WindowedNearest", "window=2000", "queries short of min(K=10, eligible): [far ", None),
    ("WindowedNearest", "window=2400", "queries short of min(K=10, eligible): [far ", None),
    # Right at K=10, short at K=100 only: no K=10 query in the message.
    ("FixedCandidatePool", "pool=64", "queries short of min(K=100, eligible): ", "K=10,"),
]


def test_reference_passes_through_pyargs(pytester: pytest.Pytester) -> None:
    """Every check of the suite passes on the reference but two, which skip: its reader and its writer in another
    process (it keeps its store in memory). Every other capability required, the skips stay two, counted in the
    summary."""
    tests = suite_tests(pytester, *SUITE, "--backend", "reference")
    result = pytester.runpytest(*SUITE, "--backend", "reference", "-rs",
                                "--conformance-require", "native_filter,lifecycle,search_batch,reader,writer")
    result.assert_outcomes(passed=tests - 2, skipped=2)
    result.stdout.fnmatch_lines(["SKIPPED *: reference keeps its store in this process's memory: no writer in "
                                 "another process [[]lacks child_writer]",
                                 "SKIPPED *: reference keeps its store in this process's memory: no reader in "
                                 "another process [[]lacks child_reader]",
                                 "filterproof: 2 checks skipped for what the adapter lacks (child_reader 1, "
                                 "child_writer 1); --conformance-require child_reader,child_writer makes each a "
                                 "failure"])


# (defect, what the run requires, the test it must fail (-k), the FAILED line, a piece of the message): defects
# that only make checks skip (a capability lost), which fail where the run requires what they lack.
REQUIRED_POINTERS = [
    ("ReaderNeverOpens", "reader", "in_this_process", "test_a_reader_in_this_process_sees_each_change",
     "defect-reader-never-opens: call reset(dim) before opening a reader: --conformance-require reader "
     "[lacks reader]"),
]


@pytest.mark.parametrize(("defect", "required", "selection", "failing_test", "pointer"), REQUIRED_POINTERS,
                         ids=[p[0] for p in REQUIRED_POINTERS])
def test_a_defect_that_only_skips_fails_where_the_run_requires_what_it_lacks(
    pytester: pytest.Pytester, defect: str, required: str, selection: str, failing_test: str, pointer: str
) -> None:
    """Unrequired, the defect's check skips: a green run, the skip counted in the summary with the way to require
    it. Required (by option, or by ``$FILTERPROOF_CONFORMANCE_REQUIRE``), the same check fails with its reason."""
    args = (*SUITE, "--adapter", f"filterproof.conformance.defects:{defect}", "-k", selection)
    green = pytester.runpytest(*args)
    green.assert_outcomes(skipped=1)
    green.stdout.fnmatch_lines([f"filterproof: 1 check skipped for what the adapter lacks ({required} 1); "
                                f"--conformance-require {required} makes each a failure"])
    red = pytester.runpytest(*args, "--conformance-require", required)
    assert red.ret == pytest.ExitCode.TESTS_FAILED
    red.stdout.fnmatch_lines([f"FAILED *::{failing_test}*", f"filterproof: 1 check failed for what "
                              f"--conformance-require asked and the adapter lacks ({required} 1)"])
    assert pointer in red.stdout.str()


def test_a_requirement_holds_across_workers_and_from_the_environment(pytester: pytest.Pytester,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Under xdist the workers fail the check and the controller counts it; the environment variable requires
    what the option would."""
    monkeypatch.setenv("FILTERPROOF_CONFORMANCE_REQUIRE", "reader")
    result = pytester.runpytest_subprocess(*SUITE, "-n", "2", "--adapter",
                                           "filterproof.conformance.defects:ReaderNeverOpens", "-k", "process")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["filterproof: 2 checks skipped for what the adapter lacks (child_reader 1, "
                                 "child_writer 1); *",
                                 "filterproof: 1 check failed for what --conformance-require asked and the adapter "
                                 "lacks (reader 1)"])


def test_an_unknown_capability_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*SUITE, "--backend", "reference", "--conformance-require", "reader,natve_filter")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--conformance-require: unknown capability 'natve_filter'; known: native_filter, "
                                 "lifecycle, search_batch, reader, child_reader*"])


def test_without_an_adapter_the_suite_skips_with_the_reason(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*SUITE, "-rs")
    assert result.parseoutcomes().get("skipped", 0) >= 20
    result.stdout.fnmatch_lines(["*no adapter selected: pass --backend NAME or --adapter*"])


def test_every_seeded_defect_has_a_pointer() -> None:
    assert sorted(defect for defect, *_ in [*POINTERS, *REQUIRED_POINTERS]) == sorted(DEFECTS)


@pytest.mark.parametrize(("defect", "selection", "failing_test", "pointer"), POINTERS, ids=[p[0] for p in POINTERS])
def test_seeded_defect_fails_with_a_pointer(
    pytester: pytest.Pytester, defect: str, selection: str, failing_test: str, pointer: str
) -> None:
    result = pytester.runpytest(*SUITE, "--adapter", f"filterproof.conformance.defects:{defect}", "-k", selection)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([f"FAILED *::{failing_test}*"])
    assert pointer in result.stdout.str()


@pytest.mark.parametrize(("defect", "option", "pointer", "absent"), SCALE_POINTERS,
                         ids=[f"{d}-{o}" for d, o, *_ in SCALE_POINTERS])
def test_a_bounded_pool_up_to_half_the_corpus_fails_the_scale_tier(
    pytester: pytest.Pytester, defect: str, option: str, pointer: str, absent: str | None
) -> None:
    result = pytester.runpytest(*SUITE, "--adapter", f"filterproof.conformance.defects:{defect}",
                                "--backend-option", option, "-k", "test_scale_tier")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["FAILED *::test_scale_tier*"])
    assert pointer in result.stdout.str()
    assert absent is None or absent not in result.stdout.str()


@pytest.mark.parametrize("defect, option", [("OnePageMetadata", "page=1000000"), ("FixedCandidatePool", "pool=100")])
def test_a_pool_covering_what_the_tier_asks_passes_it(pytester: pytest.Pytester, defect: str, option: str) -> None:
    """A page holding every eligible document, a candidate pool of K: exact, so the tier passes them."""
    result = pytester.runpytest(*SUITE, "--adapter", f"filterproof.conformance.defects:{defect}",
                                "--backend-option", option, "-k", "test_scale_tier")
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize("n", [1000, 5000])
def test_the_scale_corpus_keeps_its_promises(n: int) -> None:
    """Random levels near their targets (asked on AS_OF; some on EARLIER, with other answers); far: the nearer
    half of the corpus holds no eligible document;
    written last: each query's top K_MAX are the principal's last eligible rows, some query's nearest last;
    ineligible documents of every class; masks equal to the policy; the same corpus for the same seed."""
    corpus = scale_corpus.build(n)
    assert np.array_equal(corpus.vectors, scale_corpus.build(n).vectors)
    scores = corpus.vectors.astype(np.float64) @ corpus.queries.astype(np.float64).T
    counts = corpus.masks.sum(axis=1)
    for q, level in enumerate(corpus.levels):
        eligible = np.flatnonzero(corpus.masks[q])
        nearest = np.argsort(-scores[:, q], kind="stable")
        if level.placement == "random":
            target = max(level.share * n, 3)
            if corpus.wheres[q].as_of == scale_corpus.AS_OF:
                assert abs(np.log(counts[q] / target)) < np.log(1.2), (str(level), counts[q])
        elif level.placement == "far":
            assert len(eligible) >= (scale_corpus.K_MAX if n >= 5000 else 1), (str(level), len(eligible))
            assert not corpus.masks[q][nearest[: (n + 1) // 2]].any(), "an eligible document in the nearer half"
        else:
            assert 2 * len(eligible) >= n
            top = np.searchsorted(eligible, eligible[np.argsort(-scores[eligible, q], kind="stable")])
            assert top[: scale_corpus.K_MAX].min() >= len(eligible) - 3 * scale_corpus.K_MAX
    last = [q for q, level in enumerate(corpus.levels) if level.placement == "written last"]
    rows = np.flatnonzero(corpus.masks[last[0]])
    assert rows[-1] in {rows[np.argmax(scores[rows, q])] for q in last}, "some query's nearest is written last"
    assert {str(level).split()[0] for level in corpus.levels} == {"random", "far", "written"}
    assert max(level.share for level in corpus.levels if level.placement == "random") >= 0.5
    active = corpus.wheres[0].active
    problems = {problem(meta, active) for meta in corpus.metadata} - {None}
    assert len(problems) >= (6 if n >= 5000 else 3), problems
    fates = {"superseded": [m["revision"] != active.get((m["tenant"], m["logical_id"])) for m in corpus.metadata],
             "draft": [m["status"] == "draft" for m in corpus.metadata],
             "expired": [m.get("valid_until") == "2026-06-01" for m in corpus.metadata],
             "future": [m["valid_from"] == "2027-01-01" for m in corpus.metadata]}
    today = np.array([w.as_of == scale_corpus.AS_OF for w in corpus.wheres])
    for fate, rows_of_fate in fates.items():
        assert any(rows_of_fate) and not corpus.masks[today][:, np.array(rows_of_fate)].any(), fate
    earlier = [q for q, w in enumerate(corpus.wheres) if w.as_of == scale_corpus.EARLIER]
    assert earlier and any(not np.array_equal(corpus.masks[q], corpus.masks[q - 1]) for q in earlier), \
        "a batch mixes days whose answers differ"
    last_day = np.array([m.get("valid_until") == "2026-09-09" for m in corpus.metadata])
    assert corpus.masks[:, last_day].any(), "a document on its last day is eligible"
    for q in range(0, len(corpus.wheres), scale_corpus.QUERIES_PER_PRINCIPAL):
        assert (np.array([is_eligible(m, corpus.wheres[q]) for m in corpus.metadata]) == corpus.masks[q]).all()


def test_a_store_writing_a_document_a_second_is_stopped_within_seconds(pytester: pytest.Pytester) -> None:
    """A progress line at once, and the tier stopped after its first 8 writes (8 s at 1 s each) with the pace,
    the projection and the options that shrink it, instead of about 90 minutes of silence."""
    result = pytester.runpytest(*SUITE, "--adapter", "filterproof.conformance.defects:OneRequestPerDocument",
                                "--backend-option", "write_s=1", "-k", "test_scale_tier")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["[[]filterproof[]] scale tier, 5,000 documents: writing the corpus (0 s)",
                                 "*stopped: writing documents took 4.* s for 4 (1.0* s each), so its 5,222 would take "
                                 "about 87 minutes, past the budget of 600 s. --conformance-scale N (or "
                                 "$FILTERPROOF_CONFORMANCE_SCALE) shrinks the tier, 0 turns it off; "
                                 "--conformance-budget SECONDS*"])


def test_the_parts_of_the_longest_check_run_on_two_workers(pytester: pytest.Pytester) -> None:
    """The generated sequences, the longest check on the slower engines, run as two items: on ``-n 2`` each starts
    first on its own worker (``plugin.spread_parts``), instead of both in the first worker's chunk."""
    result = pytester.runpytest(*SUITE, "--backend", "reference", "-n", "2", "-v", "--conformance-examples", "2")
    ran = {line.split()[0] for line in result.stdout.lines if "PASSED" in line and "generated_sequences" in line}
    assert ran == {"[gw0]", "[gw1]"}, result.stdout.str()


def test_generated_sequences_on_a_slow_store_stop_after_the_first(pytester: pytest.Pytester) -> None:
    """A progress line at once; the first sequence's pace projects the run past its budget: stopped with the
    option that runs fewer, not minutes of silence."""
    result = pytester.runpytest(*SUITE, "--adapter", "filterproof.conformance.defects:OneRequestPerDocument",
                                "--backend-option", "write_s=0.1", "--conformance-budget", "5",
                                "--hypothesis-seed", "3", "-k", "generated_sequences")
    result.assert_outcomes(failed=2)  # under seed 3 each part's first sequence writes (under SUITE's 1, one did not)
    for part in (1, 2):  # each part within half the check's budget
        result.stdout.fnmatch_lines([f"[[]filterproof[]] generated sequences, part {part} of 2: 20 sequences of * to * "
                                     f"steps (0 s)",
                                     f"generated sequences, part {part} of 2 stopped: a generated sequence took * s "
                                     f"for 1 (* s each), so its 20 would take about * minute*, past the budget of "
                                     f"2.5 s. --conformance-examples N (or $FILTERPROOF_CONFORMANCE_EXAMPLES) runs "
                                     f"fewer; --conformance-budget*"])
    assert "During handling" not in result.stdout.str()


def test_a_window_covering_the_corpus_passes_the_scale_tier(pytester: pytest.Pytester) -> None:
    """The same windowed store, once its window holds every document, is exact: the tier passes it."""
    result = pytester.runpytest(*SUITE, "--adapter", "filterproof.conformance.defects:WindowedNearest",
                                "--backend-option", "window=1000000", "-k", "test_scale_tier")
    result.assert_outcomes(passed=1)


def test_the_scale_tier_takes_a_larger_corpus_on_request(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*SUITE, "--backend", "reference", "--conformance-scale", "20000",
                                "-k", "test_scale_tier")
    result.assert_outcomes(passed=1)
    off = pytester.runpytest(*SUITE, "--backend", "reference", "--conformance-scale", "0", "-k", "test_scale_tier",
                             "-rs")
    off.assert_outcomes(skipped=1)


# (defect, the clause its first failure must name, a piece of that diagnosis)
FIRST_DIAGNOSES = [
    ("DropsOpenEnded", "window", "dated missing; a probe holding only its valid_from '2026-09-08', no valid_until "
                                 "is missing too"),
    ("IgnoresValidUntil", "window", "dated leaked, rejected by the policy's window; a probe holding only its "
                                    "valid_from '2026-01-01', valid_until '2026-09-08' is returned too"),
    ("DropsTenantClause", "tenant", "other leaked, rejected by the policy's tenant; a probe holding only its tenant "
                                    "'zeta' is returned too"),
    ("FirstGroupOnly", "groups", "two missing; a probe holding only its groups ['finance', 'engineering']"),
    ("ZoneMapWidenedOnUpsert", "history", "d missing; in a store of probes, each clause's probe and its whole "
                                          "metadata come back"),
]


@pytest.mark.parametrize(("defect", "cause", "piece"), FIRST_DIAGNOSES, ids=[d for d, *_ in FIRST_DIAGNOSES])
def test_the_first_failure_names_the_clause_at_fault(pytester: pytest.Pytester, defect: str, cause: str,
                                                      piece: str) -> None:
    """Whatever test fails first (a date boundary for a tenant clause left out), its diagnosis names the clause
    the store disagrees on, asked again clause by clause, or the history when a fresh store answers right."""
    result = pytester.runpytest(*SUITE, "--adapter", f"filterproof.conformance.defects:{defect}", "-x")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    diagnoses = [line.strip().removeprefix("E").strip() for line in result.stdout.lines if "diagnosis, " in line]
    assert diagnoses and diagnoses[0].startswith(f"diagnosis, {cause}: {piece}"), diagnoses
    assert "test_pre_filter_contains_post_filter" not in result.stdout.str()


def selective_fixture() -> Prepared:
    """Thirty ineligible documents outrank the two a principal may use."""
    meta = {"tenant": "t", "revision": 1, "status": "active", "valid_from": "2026-01-01"}
    docs = [{"id": f"noise-{i}", "logical_id": f"n{i}", "groups": ["other"], "text": "alpha alpha beta", **meta}
            for i in range(30)]
    docs += [{"id": f"wanted-{i}", "logical_id": f"w{i}", "groups": ["mine"], "text": f"alpha w{i} x y z", **meta}
             for i in range(2)]
    raw = {"active_revisions": {f"t/{d['logical_id']}": 1 for d in docs}, "documents": docs,
           "cases": [{"id": "c", "query": "alpha beta", "tenant": "t", "groups": ["mine"], "as_of": "2026-02-01",
                      "expected": "wanted-0", "relevant": ["wanted-0", "wanted-1"]}]}
    return prepare(load_lab(Path("selective.json"), raw, "0" * 64))


def test_runner_reports_the_short_results_of_a_silently_short_store() -> None:
    prepared = selective_fixture()
    store = SilentlyShort()
    index(store, prepared)
    runs = by_strategy(evaluate(store, prepared, Settings(ks=(1, 5))), (1, 5))
    assert runs["pre_filter"][5]["short"] == 1 and runs["post_filter C=1"][5]["short"] == 1
    assert runs["pre_filter"][1]["false_abstention"] == 1
    honest = ReferenceAdapter()
    index(honest, prepared)
    pre = next(r for r in evaluate(honest, prepared, Settings(ks=(1, 5))) if r.strategy == "pre_filter")
    assert by_strategy([pre], (5,))["pre_filter"][5]["short"] == 0 and pre.k[5].ids == ["wanted-0", "wanted-1"]


def test_the_repository_fixtures_are_the_shipped_ones() -> None:
    """One source: ``fixtures/`` in the repository is a link to the package's data."""
    assert FIXTURES.resolve() == shipped("freshness-lab.json").parent


def test_capabilities_skip_what_an_adapter_cannot_take(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(rankonly='''
        from filterproof.adapters.base import Capabilities
        from filterproof.adapters.reference import ReferenceAdapter

        class RankOnly(ReferenceAdapter):
            name = "rank-only-store"
            capabilities = Capabilities(native_filter=False, lifecycle=False)
    ''')
    pytester.syspathinsert()
    result = pytester.runpytest(*SUITE, "--adapter", "rankonly:RankOnly", "-rs")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) == 0 and outcomes["skipped"] >= 15 and outcomes["passed"] >= 5
    result.stdout.fnmatch_lines(["*rank-only-store declares native_filter=False: no pre_filter to check*"])


def test_a_client_that_must_not_be_shared_skips_the_threads_unless_required(pytester: pytest.Pytester) -> None:
    """``thread_safe=False`` (a client per thread, as pgvector-haystack's store needs): the checks of one client
    shared by threads (searched by several; written by one while others search; written by two at once) skip with
    the reason, and fail where the run requires ``thread_safe``."""
    pytester.makepyfile(unshared='''
        from filterproof.adapters.base import Capabilities
        from filterproof.conformance.defects import KeepsFilterOnClient

        class Unshared(KeepsFilterOnClient):
            name = "unshared-store"
            capabilities = Capabilities(thread_safe=False)
    ''')
    pytester.syspathinsert()
    args = (*SUITE, "--adapter", "unshared:Unshared", "-k", "one_client", "-rs")
    green = pytester.runpytest(*args)
    green.assert_outcomes(skipped=3)
    green.stdout.fnmatch_lines(["*unshared-store declares thread_safe=False: one client per thread [[]lacks "
                                "thread_safe]"])
    red = pytester.runpytest(*args, "--conformance-require", "thread_safe")
    red.assert_outcomes(failed=3)


def test_a_green_run_on_another_path_than_the_declared_one_warns(pytester: pytest.Pytester) -> None:
    """An adapter meant to search an index whose store scans instead (DuckDB's HNSW skipped for an EXISTS) is
    green on answers; the scale tier says the path was not the declared one."""
    pytester.makepyfile(declared='''
        from dataclasses import replace

        from filterproof.adapters.reference import ReferenceAdapter

        class ScansButDeclaresAnIndex(ReferenceAdapter):
            name = "scans-but-declares-an-index"
            capabilities = replace(ReferenceAdapter.capabilities, search_path="index")
    ''')
    pytester.syspathinsert()
    result = pytester.runpytest(*SUITE, "--adapter", "declared:ScansButDeclaresAnIndex", "-k", "test_scale_tier",
                                "--conformance-scale", "1000")
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(["*SearchPathWarning: scale tier: scans-but-declares-an-index declares "
                                 "search_path='index', but its filtered searches took: exact scan 11 of 11*"])


@pytest.mark.parametrize(("spec", "path"), [("pgvector:index=hnsw,plan=seqscan", "exact scan 11 of 11"),
                                            ("pgvector:index=hnsw,plan=index,iterative_scan=strict_order,m=32,"
                                             "ef_construction=200", "index 11 of 11")])
def test_the_scale_tier_names_the_path_of_filtered_searches(pytester: pytest.Pytester, spec: str,
                                                            path: str) -> None:
    result = pytester.runpytest(*SUITE, "--backend", spec, "-k", "test_scale_tier", "--conformance-scale", "1000")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([f"[[]filterproof[]] scale tier, 1,000 documents: filtered searches take: {path} *"])


APPROXIMATE_AND_SHORT = '''
    from dataclasses import replace

    from filterproof.conformance.defects import SilentlyShort

    class ApproximateAndShort(SilentlyShort):
        """Filters the unfiltered top K, and declares itself approximate with a tolerance of 1.0."""

        name = "approximate-and-short"
        capabilities = replace(SilentlyShort.capabilities, exact=False, recall_tolerance=1.0)
'''


def test_a_recall_tolerance_does_not_wave_short_results_through(pytester: pytest.Pytester) -> None:
    """A store that promises nothing on recall (tolerance 1.0) still fails on answers lost, in the small
    selective check and the scale tier; --conformance-accept-short accepts them, and says so where it counts."""
    pytester.makepyfile(approximate=APPROXIMATE_AND_SHORT)
    pytester.syspathinsert()
    selection = ["-k", "selective_filter_is_not_short or test_scale_tier", "--conformance-scale", "1000"]
    strict = pytester.runpytest(*SUITE, "--adapter", "approximate:ApproximateAndShort", *selection)
    strict.assert_outcomes(failed=4)
    strict.stdout.fnmatch_lines(["*short result: * returned for K=* with * eligible*",
                                 "*queries short of min(K=10, eligible) (answers lost: recall_tolerance covers "
                                 "ranking, not this; --conformance-accept-short accepts it): *"])
    accepted = pytester.runpytest(*SUITE, "--adapter", "approximate:ApproximateAndShort", *selection,
                                  "--conformance-accept-short")
    accepted.assert_outcomes(passed=4)
