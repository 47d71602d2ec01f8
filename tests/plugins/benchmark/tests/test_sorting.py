def insertion_sort(xs):
    out = []
    for x in xs:
        i = len(out)
        while i > 0 and out[i - 1] > x:
            i -= 1
        out.insert(i, x)
    return out


def median(xs):
    s = insertion_sort(xs)
    return s[len(s) // 2]


DATA = [5, 3, 9, 1, 7] * 20


def test_builtin_sort(benchmark):
    result = benchmark(sorted, DATA)
    assert result[0] == 1


def test_insertion_sort(benchmark):
    result = benchmark(insertion_sort, DATA)
    assert result == sorted(DATA)


def test_median_of_an_even_count(benchmark):
    result = benchmark(median, [4, 1, 3, 2])
    assert result == 2.5


def test_empty():
    assert insertion_sort([]) == []
