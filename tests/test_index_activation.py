"""Activation is a compare-and-swap of active.json; rollback is one more activation."""

import json
import multiprocessing
import threading
from dataclasses import replace

import pytest

from fixtures.index.embedders import HashEmbedder
from fixtures.index.exports import sample_topics, write_export
from valid.errors import ReleaseError
from valid.index import (
    Store,
    activate,
    active_release_id,
    build_release,
    list_releases,
    read_active,
    resolve_release_id,
    rollback,
)


def _variant(n: int):
    topics = sample_topics()
    first = topics[0]
    return [first.with_chunks([replace(first.chunks[0], text=f"{first.chunks[0].text} Revision {n}.")] + list(first.chunks[1:]))] + topics[1:]


@pytest.fixture
def releases(tmp_path):
    """Three registered releases A (active), B and C (not activated)."""
    store = Store(tmp_path / "state")
    ids = []
    for n in range(3):
        result = build_release(write_export(tmp_path / f"{n}.jsonl", _variant(n)), HashEmbedder(), store, activate=(n == 0))
        ids.append(result.release_id)
    return store, ids


def _activate_in_process(state: str, release_id: str, expected: str, go) -> str:
    go.wait()
    try:
        activate(Store(state), release_id, expected=expected)
        return "won"
    except ReleaseError as err:
        return f"lost: {err}"


def test_two_concurrent_activations_exactly_one_wins(releases):
    store, (a, b, c) = releases
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager:
        go = manager.Event()
        with context.Pool(2) as pool:
            pending = [pool.apply_async(_activate_in_process, (str(store.root), r, a, go)) for r in (b, c)]
            go.set()
            outcomes = [p.get(timeout=60) for p in pending]
    assert sorted(o == "won" for o in outcomes) == [False, True]
    winner = (b, c)[outcomes.index("won")]
    loser_message = next(o for o in outcomes if o != "won")
    assert f"active release changed from {a[:12]} to {winner[:12]} meanwhile; rerun" in loser_message
    assert active_release_id(store) == winner
    assert read_active(store).history == [a]


def test_many_racing_threads_produce_exactly_one_activation(releases):
    store, (a, b, c) = releases
    barrier = threading.Barrier(8)
    outcomes = []

    def worker(target):
        barrier.wait()
        try:
            activate(store, target, expected=a)
            outcomes.append(("won", target))
        except ReleaseError:
            outcomes.append(("lost", target))

    threads = [threading.Thread(target=worker, args=((b, c)[i % 2],)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [t for outcome, t in outcomes if outcome == "won"]
    assert len(winners) == 1 and active_release_id(store) == winners[0]
    json.loads(store.active_path.read_text())  # never a torn file


def test_a_stale_expected_release_changes_nothing(releases):
    store, (a, b, c) = releases
    activate(store, b, expected=a)
    before = store.active_path.read_bytes()
    with pytest.raises(ReleaseError, match=f"changed from {a[:12]} to {b[:12]} meanwhile; rerun"):
        activate(store, c, expected=a)
    assert store.active_path.read_bytes() == before


def test_rollback_returns_to_the_previous_active_release(releases):
    store, (a, b, c) = releases
    activate(store, b, expected=a)
    activate(store, c, expected=b)
    assert rollback(store).active == b
    assert rollback(store).active == a
    with pytest.raises(ReleaseError, match="nothing to roll back to"):
        rollback(store)
    assert active_release_id(store) == a


def test_rollback_is_a_compare_and_swap_too(releases):
    store, (a, b, _) = releases
    activate(store, b, expected=a)
    with pytest.raises(ReleaseError, match="meanwhile"):
        rollback(store, expected=a)
    assert active_release_id(store) == b


def test_only_verified_releases_can_be_activated(releases, tmp_path):
    store, (a, _, _) = releases
    with pytest.raises(ReleaseError, match="no verified release"):
        activate(store, "f" * 64, expected=a)
    (store.release_dir(a) / "verified").unlink()  # a release dir without its marker is not registered
    with pytest.raises(ReleaseError, match="no verified release"):
        activate(store, a, expected=a)


def test_list_releases_marks_the_active_one(releases):
    store, (a, b, c) = releases
    listed = list_releases(store)
    assert sorted(r.id for r in listed) == sorted([a, b, c])
    assert [r.id for r in listed if r.active] == [a]
    assert all(r.chunks == 18 and r.embedder == "hash-bow@1/64" for r in listed)


def test_release_ids_resolve_from_unique_prefixes(releases):
    store, (a, _, _) = releases
    assert resolve_release_id(store, a[:12]) == a
    with pytest.raises(ReleaseError, match="too short"):
        resolve_release_id(store, a[:3])
    with pytest.raises(ReleaseError, match="no verified release"):
        resolve_release_id(store, "zzzzzzzz")


def test_prune_keeps_the_active_release_its_rollback_targets_and_pending_ones(tmp_path):
    from fixtures.index.stores import namespace_collections
    from valid.index import prune_releases

    store = Store(tmp_path / "state")
    ids = [build_release(write_export(tmp_path / f"{n}.jsonl", _variant(n)), HashEmbedder(), store).release_id for n in range(5)]
    pending = build_release(write_export(tmp_path / "p.jsonl", _variant(99)), HashEmbedder(), store, activate=False).release_id
    removed = prune_releases(store, keep=2)
    assert sorted(removed) == sorted(ids[:2])
    assert sorted(r.id for r in list_releases(store)) == sorted(ids[2:] + [pending])
    assert namespace_collections(store) == sorted(store.collection_name(r) for r in ids[2:] + [pending])
    assert not any(store.release_dir(r).exists() for r in removed)
    assert read_active(store).history == ids[2:4]
    assert rollback(store).active == ids[3] and rollback(store).active == ids[2]
    with pytest.raises(ReleaseError, match="nothing to roll back to"):
        rollback(store)
    # after rolling back, the newer releases are not in the history but wait to be activated again
    assert prune_releases(store, keep=0) == []
