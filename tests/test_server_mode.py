"""The index on a real Chroma server (`chroma run`): replicas with only the URL, one writer at a time, faults."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from chroma_server import ChromaServer, index_env
from slack_sdk import WebClient
from slack_stub import BOT_USER_ID, SlackStub
from test_slack import BOT_TOKEN, mention

from assistant.index.store import ChunkStore
from assistant.index.writer_lock import LOCK_COLLECTION, LOCK_FILE, FileLock, writer_lock
from assistant.knowledge_base import KnowledgeBase
from assistant.model.errors import IndexUnavailable, WriterBusy
from assistant.runtime.settings import Settings
from bench.tcp_proxy import TcpProxy
from ingest import sync
from interfaces.slack.listeners import Seen, answer_event

pytestmark = pytest.mark.server_e2e  # CI runs these in its --chroma-server pass, with the store contract

ROOT = Path(__file__).resolve().parents[1]
CUDA = "What is the minimum CUDA version to build PyTorch 2.12 from source?"
GUIDE = "pytorch/2.12.0/migration-guide.txt"


def app(args: list[str], settings: Settings, **env: str) -> subprocess.Popen[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("RELDOCS_")}
    environ["RELDOCS_MODEL_DIR"] = os.environ["RELDOCS_MODEL_DIR"]  # the session's ONNX export, not a second one
    environ |= {"RELDOCS_CORPUS_DIR": str(settings.corpus_dir), "RELDOCS_DATA_DIR": str(settings.data_dir)}
    environ |= index_env(settings) | env
    return subprocess.Popen(
        [sys.executable, *args], cwd=ROOT, env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def finished(proc: subprocess.Popen[str], timeout: float = 180) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def bump_cuda(corpus: Path) -> None:
    guide = corpus / GUIDE
    guide.write_text(guide.read_text().replace("CUDA 12.6 or newer", "CUDA 12.8 or newer"))


def generations(settings: Settings) -> list[str]:
    return sorted(c.name for c in ChunkStore.open(settings).client.list_collections() if c.name.startswith("chunks-"))


def test_a_replica_with_only_the_url_serves_and_follows_new_generations(
    chroma: ChromaServer, corpus_copy: Path, tmp_path: Path, embedder
) -> None:
    writer = chroma.settings("replicas", corpus_dir=corpus_copy, data_dir=tmp_path / "writer")
    sync(writer, progress=False, embedder=embedder)
    first = KnowledgeBase.open(writer, embedder=embedder)
    # Another machine: no corpus, no data folder of its own, just the server's address.
    replica = KnowledgeBase.open(
        chroma.settings("replicas", corpus_dir=tmp_path / "none", data_dir=tmp_path / "replica"), embedder=embedder
    )
    assert replica.products() == first.products() and replica.versions() == first.versions()
    assert replica.ask(CUDA).text == first.ask(CUDA).text and "12.6" in replica.ask(CUDA).text
    assert not (tmp_path / "writer" / "index").exists()  # the manifest lives on the server, not in a folder

    bump_cuda(corpus_copy)
    code, _, err = finished(app(["app.py", "ingest"], writer))  # another process makes a generation live
    assert code == 0, err
    assert "12.8" in replica.ask(CUDA).text  # on its next question, without reopening
    assert "12.8" in first.ask(CUDA).text
    assert len(generations(writer)) == 1


@pytest.mark.slow  # two `app.py ingest` processes embed the corpus: they load the model
@pytest.mark.usefixtures("model_dir")
@pytest.mark.parametrize("mode", ["folder", "server"])
def test_two_ingests_at_once_never_interleave(
    mode: str, chroma: ChromaServer, corpus_copy: Path, tmp_path: Path
) -> None:
    # chroma_url=None: a folder, also under --chroma-server
    index = {"chroma_url": chroma.url, "chroma_database": "two"} if mode == "server" else {"chroma_url": None}
    settings = Settings(corpus_dir=corpus_copy, data_dir=tmp_path / "data", **index)  # type: ignore[arg-type]
    procs = [app(["app.py", "ingest"], settings) for _ in range(2)]
    results = sorted(finished(p) for p in procs)
    (won, _, _), (lost, _, err) = results
    assert (won, lost) == (0, 1), results
    assert err.startswith("error: another ingest (pid ") and "is writing the index" in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
    store = ChunkStore.open(settings)
    manifest = store.manifest()
    assert manifest is not None and generations(settings) == [manifest.collection]

    # With a wait, the second runs after the first instead (and finds nothing left to do).
    with writer_lock(store, settings):
        waiting = app(["app.py", "ingest"], settings, RELDOCS_WRITER_WAIT_S="120")
        assert waiting.stderr is not None
        # It says that it waits, and for whom, once it has met the lock held here (no sleep that a slow start
        # could outlast: the line is read as soon as it is written; end of output would end the loop).
        said = ""
        while "waiting up to" not in said and (line := waiting.stderr.readline()):
            said += line
        assert "waiting up to 120 s" in said and f"pid {os.getpid()}" in said, said
        assert waiting.poll() is None
    code, out, err = finished(waiting)
    assert code == 0 and "0 added" in out, err


def test_an_ingest_meeting_a_lock_just_taken_names_its_holder(tmp_path: Path) -> None:
    """Two ingests started together: the loser may find the lock taken before the winner has written its name."""
    folder = tmp_path / "index"
    folder.mkdir()
    held = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT)
    fcntl.flock(held, fcntl.LOCK_EX)  # taken, the name not yet written
    threading.Timer(0.2, lambda: os.pwrite(held, b"pid 1 on host", 0)).start()
    with pytest.raises(WriterBusy, match=r"^another ingest \(pid 1 on host\) is writing"):
        FileLock(folder, wait_s=0).__enter__()
    os.close(held)


def test_a_killed_writers_flock_is_gone_with_it(corpus_copy: Path, tmp_path: Path, embedder) -> None:
    settings = Settings(corpus_dir=corpus_copy, data_dir=tmp_path / "data", chroma_url=None)  # a folder, always
    holder = app(
        [
            "-c",
            "import sys, time; from assistant.runtime.settings import Settings; "
            "from assistant.index.store import ChunkStore; "
            "from assistant.index.writer_lock import writer_lock; s = Settings(); "
            "lock = writer_lock(ChunkStore.open(s), s).__enter__(); print('HELD', flush=True); time.sleep(600)",
        ],
        settings,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "HELD"
    with pytest.raises(WriterBusy, match="another ingest"):
        sync(settings, progress=False, embedder=embedder)
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    assert sync(settings, progress=False, embedder=embedder).added > 0


def test_kill_9_mid_write_leaves_the_previous_generation_live(
    chroma: ChromaServer, corpus_copy: Path, tmp_path: Path, embedder
) -> None:
    settings = chroma.settings("killed", corpus_dir=corpus_copy, data_dir=tmp_path / "data", writer_wait_s=60)
    sync(settings, progress=False, embedder=embedder)
    serving = KnowledgeBase.open(settings, embedder=embedder)
    [live] = generations(settings)

    bump_cuda(corpus_copy)
    # The writer stops for good after filling its new collection, before the swap; there it is killed.
    code = (
        "import time, app; from assistant.index import manifest as m; "
        "m.ChromaManifest.write = lambda self, manifest: (print('FILLED', flush=True), time.sleep(600)); "
        "app.main(['ingest'])"
    )
    writer = app(["-c", code], settings, RELDOCS_WRITER_LEASE_S="3")
    assert writer.stdout is not None and writer.stdout.readline().strip() == "FILLED"
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    half = [g for g in generations(settings) if g != live]
    assert len(half) == 1  # the killed writer's collection, complete but never made live

    assert "12.6" in serving.ask(CUDA).text  # the previous generation still answers
    assert "12.6" in KnowledgeBase.open(settings, embedder=embedder).ask(CUDA).text
    assert ChunkStore.open(settings).client.get_collection(LOCK_COLLECTION)  # the dead writer's lease is left

    started = time.monotonic()
    report = sync(settings, progress=False, embedder=embedder)  # waits out the 3 s lease, then syncs
    assert report.updated > 0 and time.monotonic() - started < 60
    [newest] = generations(settings)
    assert newest not in (live, *half)  # the half-written collection was dropped
    assert "12.8" in serving.ask(CUDA).text


def test_a_fresh_lease_on_the_server_is_respected(
    chroma: ChromaServer, corpus_copy: Path, tmp_path: Path, embedder
) -> None:
    settings = chroma.settings("lease", corpus_dir=corpus_copy, data_dir=tmp_path / "data")
    client = ChunkStore.open(settings).client
    client.create_collection(
        LOCK_COLLECTION, metadata={"holder": "pid 1 on elsewhere", "expires": time.time() + 60}, embedding_function=None
    )
    with pytest.raises(WriterBusy, match=r"another ingest \(pid 1 on elsewhere\)"):
        sync(settings, progress=False, embedder=embedder)
    client.delete_collection(LOCK_COLLECTION)
    expired = {"holder": "gone", "expires": time.time() - 1}
    client.create_collection(LOCK_COLLECTION, metadata=expired, embedding_function=None)
    assert sync(settings, progress=False, embedder=embedder).added > 0  # an expired lease is broken


def test_server_outage_gives_one_line_and_answers_resume(corpus_copy: Path, tmp_path: Path, embedder) -> None:
    from interfaces.web import api_ask

    server = ChromaServer(tmp_path / "chroma").start()
    try:
        settings = server.settings("outage", corpus_dir=corpus_copy, data_dir=tmp_path / "data")
        sync(settings, progress=False, embedder=embedder)
        kb = KnowledgeBase.open(settings, embedder=embedder)
        assert "12.6" in kb.ask(CUDA).text

        server.stop()
        with pytest.raises(IndexUnavailable) as down:
            kb.ask(CUDA)
        message = str(down.value)
        assert message.startswith("index unavailable") and "retrying" in message and "\n" not in message
        with pytest.raises(IndexUnavailable):
            kb.search("torchrun port")
        import gradio as gr

        with pytest.raises(gr.Error) as shown:
            api_ask(kb, CUDA)
        assert shown.value.message == message
        code, out, err = finished(app(["app.py", "ask", "--no-sync", CUDA], settings))
        assert code == 1 and out == "" and err.startswith("error: index unavailable") and err.count("\n") == 1, err
        assert "Traceback" not in err
        with SlackStub(bot_token=BOT_TOKEN) as slack:
            client = WebClient(token=BOT_TOKEN, base_url=slack.api_url)
            event = mention(slack, CUDA)
            answer_event(event, client=client, kb=kb, seen=Seen(), bot_user_id=BOT_USER_ID)
            assert slack.thread("C1", event["ts"])[-1].text == message  # the placeholder says it, in one line

        server.start()  # same port, same path
        assert "12.6" in kb.ask(CUDA).text  # the same knowledge base, reconnected by itself
        assert "12.6" in api_ask(kb, CUDA)["answer"]
    finally:
        server.stop()


def test_a_cut_link_to_the_server_is_an_outage_too(
    chroma: ChromaServer, corpus_copy: Path, tmp_path: Path, embedder
) -> None:
    """Connections reset, or accepted and dropped, by the network between a replica and a server that still runs:
    the replica says the index is unavailable (not "something went wrong") and answers once the link is back."""
    settings = chroma.settings("cut-link", corpus_dir=corpus_copy, data_dir=tmp_path / "data")
    sync(settings, progress=False, embedder=embedder)
    relay = TcpProxy(("127.0.0.1", chroma.port))
    try:
        kb = KnowledgeBase.open(settings.model_copy(update={"chroma_url": relay.url}), embedder=embedder)
        assert "12.6" in kb.ask(CUDA).text
        relay.cut()
        for _ in range(3):  # the live connection reset, then fresh clients whose connections are dropped
            with pytest.raises(IndexUnavailable, match=r"^index unavailable: the Chroma server at .* retrying$"):
                kb.ask(CUDA)
        relay.restore()
        assert "12.6" in kb.ask(CUDA).text
    finally:
        relay.close()
