"""The offline embedder: pinned weights, the vendored tokenizer, sentence-transformers' recipe, no network."""

import hashlib
import shutil
import subprocess
import sys
import textwrap
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from valid.embed import Embedder, make_embedder
from valid.embed.offline import MODEL_SHA256, TOKENIZER_SHA256, OfflineMiniLM, default_model_path
from valid.errors import ConfigError


@pytest.fixture(scope="module")
def embedder() -> OfflineMiniLM:
    return OfflineMiniLM()


def test_vendored_tokenizer_is_the_all_minilm_l6_v2_tokenizer():
    path = Path(str(resources.files("valid") / "data" / "tokenizer.json"))
    data = path.read_bytes()
    assert len(data) == 466_247
    assert hashlib.sha256(data).hexdigest() == TOKENIZER_SHA256
    assert (path.parent / "NOTICE.tokenizer").is_file()


def test_offline_embedder_rejects_a_model_with_the_wrong_sha256(tmp_path):
    tampered = tmp_path / "model.onnx"
    shutil.copyfile(default_model_path(), tampered)
    with open(tampered, "r+b") as handle:
        handle.seek(-1, 2)
        last = handle.read(1)
        handle.seek(-1, 2)
        handle.write(bytes([last[0] ^ 0xFF]))
    with pytest.raises(ConfigError, match="sha256"):
        OfflineMiniLM(model_path=tampered)
    with pytest.raises(ConfigError, match="sha256"):
        OfflineMiniLM(model_sha256="0" * 64)


def test_offline_embedder_identity_names_model_recipe_and_dimension(embedder):
    assert isinstance(embedder, Embedder)
    assert embedder.id.startswith("minilm-l6-v2-int8@") and len(embedder.id.split("@")[1]) == 8
    assert embedder.dimension == 384
    assert OfflineMiniLM(tokenizer_sha256=TOKENIZER_SHA256, model_sha256=MODEL_SHA256).id == embedder.id
    assert make_embedder("offline").id == embedder.id


def test_paraphrase_is_closer_than_unrelated_text(embedder):
    triples = [
        ("How do I create a TPU v6e VM?", "Steps to provision a Trillium TPU virtual machine", "The cafeteria serves soup on Fridays."),
        ("How much HBM does each v5p chip have?", "Memory capacity per v5p chip", "Reset your password from the login page."),
        ("Delete a queued resource request", "How to remove a queued resource", "Ironwood pods scale to thousands of chips."),
    ]
    for anchor, paraphrase, unrelated in triples:
        a, p, u = (np.array(v) for v in embedder.embed_documents([anchor, paraphrase, unrelated]))
        assert float(a @ p) > float(a @ u) + 0.2, (anchor, float(a @ p), float(a @ u))


def test_vectors_are_unit_length_and_do_not_depend_on_the_batch(embedder):
    texts = ["short", "a much longer text about TPU slices, chips, hosts and the runtime version " * 5, "v2-alpha-tpuv6e"]
    alone = [embedder.embed_query(t) for t in texts]
    batched = OfflineMiniLM(batch_size=8).embed_documents(texts)
    for one, many in zip(alone, batched):
        assert abs(float(np.linalg.norm(one)) - 1.0) < 1e-5
        np.testing.assert_allclose(one, many, atol=1e-6)
    assert embedder.embed_documents(texts) == alone  # batch size 1: bit-identical


def test_long_text_is_truncated_at_256_tokens(embedder):
    head = "tpu " * 300
    assert embedder.embed_query(head) == embedder.embed_query(head + "completely different words at the end " * 50)


def test_offline_embedder_opens_no_network_connection():
    script = textwrap.dedent(
        """
        import socket
        def refuse(*args, **kwargs):
            raise SystemExit("network access attempted")
        socket.socket.connect = refuse
        socket.socket.connect_ex = refuse
        socket.create_connection = refuse
        socket.getaddrinfo = refuse
        from valid.embed.offline import OfflineMiniLM
        vectors = OfflineMiniLM().embed_documents(["Create a TPU VM", "Delete it"])
        assert len(vectors) == 2 and len(vectors[0]) == 384
        print("ok")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def _sessions_alive() -> int:
    import gc

    import onnxruntime

    gc.collect()
    return sum(isinstance(o, onnxruntime.InferenceSession) for o in gc.get_objects())


def test_embedders_of_one_process_share_one_loaded_model_and_free_it_with_the_last():
    # A server with several releases, or a process that opens many engines, would otherwise hold
    # one ~100 MB ONNX session per embedder.
    before = _sessions_alive()
    first, second = OfflineMiniLM(), OfflineMiniLM()
    a = first.embed_query("create a TPU VM")
    b = second.embed_query("create a TPU VM")
    assert a == b
    assert _sessions_alive() - before <= 1
    other_threads = OfflineMiniLM(threads=1)
    assert np.allclose(other_threads.embed_query("create a TPU VM"), a, atol=1e-5)
    assert _sessions_alive() - before <= 2  # another thread count is another session
    del first, second, other_threads
    assert _sessions_alive() == before
