"""Output paths checked before the work that fills them (a match, a game, a recording).

A path that cannot be written fails in one line naming the path and what is
wrong, before anything is played, so no result is lost at the end.
"""

import os
import tempfile

ALLOWED_FILE = "a file name in an existing, writable folder"
#: What a training run writes in its folder (``training.run_folder`` reads the same names).
RUN_FILES = ("config.yaml", "latest.pt", "best.pt", "policy.pt", "metrics.csv")


def check_output_file(path, option="path", example="out.json") -> str:
    """``path`` as a string if a file can be written there, else a ``ValueError``
    naming ``option`` (e.g. ``"--json"``), the path and what is wrong
    (``example``: a file name to suggest inside a folder given by mistake).

    The file may exist (it is replaced) but must not be a folder; its folder
    must exist, be a folder and be writable (for a new file, a probe file is created there and
    removed)."""
    text = os.fspath(path) if isinstance(path, os.PathLike) else path
    if not isinstance(text, str) or not text:
        raise ValueError(f"{option} {path!r} is not a path; allowed: {ALLOWED_FILE}")
    where = f"{option} {text}"
    if os.path.isdir(text):
        raise ValueError(f"{where} is an existing folder; allowed: {ALLOWED_FILE} "
                         f"(e.g. {os.path.join(text, example)})")
    if text.endswith(("/", os.sep)):
        raise ValueError(f"{where} ends with '/' (a folder); allowed: {ALLOWED_FILE}")
    exists = os.path.exists(text)
    check_output_folder(os.path.dirname(text) or ".", where, probe=not exists)
    if exists and os.path.isfile(text):  # not a pipe or a device: opening those may block or consume
        try:  # opened for appending and closed at once: the file is not changed
            with open(text, "ab"):
                pass
        except OSError as exc:
            raise ValueError(f"{where} exists and is not writable ({exc.strerror}); allowed: {ALLOWED_FILE}") from None
    return text


def check_not_an_input(path, option, specs) -> None:
    """A ``ValueError`` if the output ``path`` (given as ``option``) is a file one of the agent ``specs``
    reads (a policy file, ``champion:value=PATH``, a ``module:Class``'s source), any file the package ships
    (``champion`` reads its value files without naming them), any existing ``.pt`` or ``.py`` file, or a
    training run's file (:data:`RUN_FILES`
    in a folder holding ``latest.pt``, written yet or not): the results would replace an agent or a run.
    The path is judged where it leads: a link to such a file is refused as the file is."""
    from ..agents.registry import shipped_file, spec_files

    path = os.fspath(path)
    real = os.path.realpath(path)
    folder = os.path.dirname(real)
    if os.path.basename(real) in RUN_FILES and os.path.isfile(os.path.join(folder, "latest.pt")):
        raise ValueError(f"{option} {path} is a file of the training run in {folder} (--resume reads it); give "
                         "another path (the file is kept)")
    if not os.path.exists(real):
        return
    shipped = os.path.realpath(shipped_file("checkpoints"))
    if real.startswith(shipped + os.sep):
        raise ValueError(f"{option} {path} is a policy file the package ships (agents read it); give another "
                         "path (the file is kept)")
    for spec in specs:
        if any(os.path.samefile(real, read) for read in spec_files(spec)):
            raise ValueError(f"{option} {path} is the file that agent {spec!r} reads; give another path "
                             "(the input is kept)")
    if os.path.isfile(real) and real.endswith(".pt"):
        raise ValueError(f"{option} {path} is a policy or training checkpoint (.pt: agents play it, a run resumes "
                         "from it); give another path (the file is kept)")
    if os.path.isfile(real) and real.endswith(".py"):
        raise ValueError(f"{option} {path} is Python source (.py: an agent's or a script's code); give another "
                         "path (the file is kept)")


def check_outside_shipped_folders(folder, where, shipped=()) -> None:
    """A ``ValueError`` if ``folder`` is, or is inside, a folder the package reads its shipped files from:
    its ``checkpoints`` and the ``shipped`` folders a caller names (the trainer's configs). Files written
    there would be read as shipped ones. Judged where the path leads."""
    from ..agents.registry import shipped_file

    real = os.path.realpath(folder)
    for kept in (shipped_file("checkpoints"), *shipped):
        kept = os.path.realpath(kept)
        if real == kept or real.startswith(kept + os.sep):
            raise ValueError(f"{where} {folder} is in {kept}, where the package keeps its shipped files (agents "
                             "and configs are read from there); give a folder elsewhere")


def check_outputs(outputs, inputs=()) -> None:
    """Check every output file before any work starts: ``outputs`` is ``(option, path, example)``
    triples (``path`` None: not given; ``example`` as for :func:`check_output_file`). Two options
    naming one file are refused (one would overwrite the other), and so is a file that one of the
    agent specs ``inputs`` reads or that the package ships (:func:`check_not_an_input`)."""
    given = {}
    for option, path, example in outputs:
        if path is None:
            continue
        check_output_file(path, option, example)
        check_not_an_input(path, option, inputs)
        key = os.path.realpath(path)
        if key in given:
            raise ValueError(f"{given[key]} and {option} name the same file {path}; give each its own file")
        given[key] = option


def write_output(path, text, option) -> None:
    """Write ``text`` to the output ``path`` (checked before the work by :func:`check_output_file`). A
    write that fails now (a full disk) is an ``OSError`` naming ``option`` and the path."""
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as exc:
        raise OSError(exc.errno, f"{exc.strerror or exc}; the results are printed above", f"{option} {path}") from None


def check_output_folder(folder, where, probe=True) -> None:
    """A ``ValueError`` (starting with ``where``) unless ``folder`` is an existing, writable folder
    (``probe``: where a new file is to be made, one is created and removed to be sure)."""
    if not os.path.exists(folder):
        raise ValueError(f"{where}: folder {folder} does not exist; create it first or give a path in an existing folder")
    if not os.path.isdir(folder):
        raise ValueError(f"{where}: {folder} is a file, not a folder; give a path in an existing folder")
    if not os.access(folder, os.W_OK | os.X_OK) or (probe and not can_create_in(folder)):
        raise ValueError(f"{where}: folder {folder} is not writable; give a path in a writable folder")


def check_can_make_folder(folder, what) -> None:
    """A ``ValueError`` (starting with ``what``) unless ``folder`` is a writable folder or can be made:
    its nearest existing ancestor is a writable folder."""
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise ValueError(f"{what} {folder!r} is a file, not a folder")
    parent = os.path.abspath(folder)
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK) or not can_create_in(parent):
        raise ValueError(f"{what} {folder!r} cannot be written: {parent!r} is not a writable folder")


def can_create_in(folder) -> bool:
    """Whether a file can be created in ``folder``: one is, and removed at once. ``os.access`` alone says
    yes to root everywhere, /proc and read-only mounts included."""
    try:
        handle, probe = tempfile.mkstemp(dir=folder, prefix=".allfives-write-check-")
    except OSError:
        return False
    os.close(handle)
    try:
        os.unlink(probe)
    except OSError:  # a folder that lets files be made but not removed: say so rather than leave one silently
        return False
    return True
