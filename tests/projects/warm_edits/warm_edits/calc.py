# numpy, as the projects that gain most from warm runs import it: the warm
# process imports numpy ahead, and an edit here must still be seen.
import numpy as np


def answer():
    return int(np.int64(21) * 2)
