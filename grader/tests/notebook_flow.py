"""make test's part notebook: docs/notebook.ipynb, the notebook for a notebook service's free GPU,
executed headless (nbclient and ipykernel, from PyPI: .ci/run installs them) on the student
tarball that part dist made, in build/test/notebook/: every cell up to the first tagged "gpu"
where there is no GPU here, every cell where there is one. Each check is (description, status,
detail) for run_tests.py to count.
"""
import os
import re
import shutil

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NOTEBOOK = os.path.join(ROOT, "docs", "notebook.ipynb")


def checks(work, gpu, tarball):
    try:
        import nbformat
        from nbclient import NotebookClient
        from nbclient.exceptions import CellExecutionError
    except ImportError as error:
        return [("docs/notebook.ipynb runs headless", "fail" if os.environ.get("CI") else "skip",
                 f"{error.name} is not installed (python3 -m pip install nbclient ipykernel; .ci/run does)")]
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    try:
        nbformat.validate(notebook)
    except nbformat.ValidationError as error:
        return [("docs/notebook.ipynb is a valid notebook", "fail", str(error)[:200])]
    cells = notebook.cells
    first_gpu = next((i for i, cell in enumerate(cells) if "gpu" in cell.get("metadata", {}).get("tags", [])), len(cells))
    if not gpu:
        notebook.cells = cells[:first_gpu]
    ran = sum(cell.cell_type == "code" for cell in notebook.cells)
    folder = os.path.join(work, "notebook")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    shutil.copy(tarball, os.path.join(folder, "cuda-histogram-labs.tar.gz"))
    saved = os.environ.get("KIT_TARBALL")
    os.environ["KIT_TARBALL"] = "cuda-histogram-labs.tar.gz"
    try:
        NotebookClient(notebook, timeout=1800, kernel_name="python3",
                       resources={"metadata": {"path": folder}}).execute()
        failure = None
    except CellExecutionError as error:
        failure = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", str(error)).split())[-300:]
    except Exception as error:  # the kernel would not start, or died
        failure = f"{type(error).__name__}: {error}"[:300]
    finally:
        if saved is None:
            os.environ.pop("KIT_TARBALL", None)
        else:
            os.environ["KIT_TARBALL"] = saved
    with open(os.path.join(work, "notebook.ipynb.out"), "w") as out:
        nbformat.write(notebook, out)  # the cells with what they printed, to read after a failure
    built = os.path.isfile(os.path.join(folder, "cuda-histogram-labs", "build", "student", "lab1-race", "grader"))
    scope = "every cell" if gpu else f"the {ran} code cells before the first that needs a GPU"
    ok = failure is None and built
    return [(f"docs/notebook.ipynb runs headless: {'all' if gpu else 'up to the GPU'}", "pass" if ok else "fail",
             f"{scope}, lab 1 built" if ok else (failure or "lab 1's grader was not built") +
             "; cells and output: build/test/notebook.ipynb.out")]
