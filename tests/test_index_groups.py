"""Comparison groups: variants and counterparts, computed at index time and stored in the release."""

from valid.contracts import Chunk
from valid.index import Store, open_release
from valid.index.groups import Groups, build_groups


def chunks_of(export_path):
    return [Chunk.model_validate_json(line) for line in export_path.read_text(encoding="utf-8").splitlines()[1:]]


def test_the_release_stores_the_groups_its_export_gives(sample_build):
    stored = sample_build.state / "releases" / sample_build.release_id / "groups.json"
    assert stored.exists()
    with open_release(Store(sample_build.state), sample_build.release_id) as release:
        header = release.header
        assert release.groups == build_groups(chunks_of(sample_build.export), header.profiles)


def test_variants_share_a_group(sample_build):
    groups = Groups.model_validate_json((sample_build.state / "releases" / sample_build.release_id / "groups.json").read_bytes())
    assert groups.group("runtimes.dita#runtimes/versions~v5p") == [
        "runtimes.dita#runtimes/versions~tpu7x",
        "runtimes.dita#runtimes/versions~v5p",
        "runtimes.dita#runtimes/versions~v6e",
    ]
    assert groups.member_for("runtimes.dita#runtimes/versions~v5p", "v6e") == "runtimes.dita#runtimes/versions~v6e"


def test_counterparts_of_different_topics_group_once_the_generations_names_are_out(sample_build):
    groups = Groups.model_validate_json((sample_build.state / "releases" / sample_build.release_id / "groups.json").read_bytes())
    # "Key specifications for TPU v5p" and "... for TPU v6e"; "Supported frameworks" and "Frameworks".
    assert groups.group("v5p.dita#v5p/v5p-specs") == ["v5p.dita#v5p/v5p-specs", "v6e.dita#v6e/v6e-specs"]
    assert "tpu7x/tpu7x-overview.dita#tpu7x/frameworks" in groups.group("v5p.dita#v5p/frameworks")
    # A chunk only one generation has stays alone, and its topic is a lookup.
    assert groups.group("tpu7x/tpu7x-overview.dita#tpu7x/vm") == ["tpu7x/tpu7x-overview.dita#tpu7x/vm"]
    assert "tpu7x/create-tpu7x-capacity.dita#create-tpu7x-capacity/capacity-steps" in groups.topic_groups(
        "tpu7x/create-tpu7x-capacity.dita#create-tpu7x-capacity/body"
    )


def test_same_titles_in_different_places_are_not_counterparts(corvane_export):
    from valid.export.file import read_export

    export = read_export(corvane_export)
    groups = build_groups(export.chunks, export.header.profiles)
    # Each command's "Synopsis": same title, disjoint scopes, but not the same place.
    assert "cli/ref-prune.dita#corvane-prune/synopsis" not in groups.group("cli/ref-mirror.dita#corvane-mirror/synopsis~cli-1.0.0")


def test_groups_are_deterministic(corvane_export):
    from valid.export.file import read_export

    export = read_export(corvane_export)
    first = build_groups(export.chunks, export.header.profiles).model_dump_json()
    assert build_groups(list(reversed(export.chunks)), export.header.profiles).model_dump_json() == first
