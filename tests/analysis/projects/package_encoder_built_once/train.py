"""Written from https://stackoverflow.com/questions/48274929/pytorch-runtimeerror-trying-to-backward-through-the-graph-a-second-time-but-the
(features computed once, before the loop, by a trainable encoder): here the loop lives in the
project's package. Checked alone (an editor with this file open), the finding sits on the call that
runs it; a check of the project says it once, where it raises (trainer/loop.py, labelled there)."""

from trainer.loop import fit

if __name__ == "__main__":
    fit()  # error: [pre-loop-graph-backward] raises at trainer/loop.py:20
