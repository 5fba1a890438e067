"""PackedLaunch without a GPU: a fake driver reads back the packed arguments at each launch, so
the pointers a call passes must land in the right slots, by the two-pointer fast path and by
call_at alike, and a launch retried after binding a context passes the same arguments. Plain and
cooperative launches go through CuPy's bindings (launch._launchers, faked here over the same
driver, raising as they do); a dependent launch goes through cuLaunchKernelEx with the programmatic
stream serialization attribute set."""
import ctypes

import pytest

from bwlab.core import launch


class FakeDriver:
    """Records each launch's arguments. fail_first: that many launches fail for want of a
    context, and each failing one overwrites the pointer slots, as another thread's launch
    between the failure and the retry would."""

    def __init__(self, fail_first=0):
        self.seen, self.fail_first, self.binds, self.ex, self.funcs = [], fail_first, 0, [], []

    def cuLaunchKernel(self, func, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        self.funcs.append(func.value if isinstance(func, ctypes.c_void_p) else func)
        p = ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p))
        args = [ctypes.c_uint64.from_address(p[i]).value for i in range(5)]
        self.seen.append(((gx, gy, gz, bx, by, bz), shared, stream, args))
        if self.fail_first:
            self.fail_first -= 1
            for i in range(2):
                ctypes.c_uint64.from_address(p[i]).value = 0xDEAD
            return launch._INVALID_CONTEXT
        return 0

    def cuLaunchKernelEx(self, config, func, params, extra):
        """Reads the CUlaunchConfig at cuda.h's offsets: grid and block at 0, shared memory at 24,
        the stream at 32, the attributes at 40 and their count at 48; an attribute's id at 0, its
        value at 8."""
        at = ctypes.addressof(config._obj)  # passed by reference
        u32 = [ctypes.c_uint32.from_address(at + 4 * i).value for i in range(7)]
        stream, attrs = ctypes.c_uint64.from_address(at + 32).value, ctypes.c_uint64.from_address(at + 40).value
        count = ctypes.c_uint32.from_address(at + 48).value
        self.ex.append((count, ctypes.c_int32.from_address(attrs).value, ctypes.c_int32.from_address(attrs + 8).value))
        return self.cuLaunchKernel(func, *u32, stream, params, extra)


class Fn:
    ptr = 1234


class DriverError(RuntimeError):
    """As CuPy's CUDADriverError: the CUDA error in .status, its name in the message."""

    def __init__(self, status):
        super().__init__(f"CUDA_ERROR_{status}: a driver error")
        self.status = status


def launchers(d):
    """CuPy's bindings as _launchers gives them, over the fake driver d: every argument an int (the
    bindings take C integers: a ctypes object or None is a TypeError there), an error raised rather
    than returned."""
    def plain(*args):
        assert len(args) == 11 and all(type(a) is int for a in args), args
        err = d.cuLaunchKernel(*args)
        if err:
            raise DriverError(err)

    def cooperative(*args):
        assert len(args) == 10 and all(type(a) is int for a in args), args
        d.cooperative = getattr(d, "cooperative", 0) + 1
        err = d.cuLaunchKernel(*args, 0)
        if err:
            raise DriverError(err)

    return lambda: (plain, cooperative, DriverError)


@pytest.fixture
def driver(monkeypatch):
    d = FakeDriver()
    monkeypatch.setattr(launch, "_driver", lambda: d)
    monkeypatch.setattr(launch, "_launchers", launchers(d))
    monkeypatch.setattr(launch, "_bind_context", lambda: setattr(d, "binds", d.binds + 1))
    return d


def _packed(dependent=False, cooperative=False):
    return launch.PackedLaunch(Fn(), (3, 1, 1), (256, 1, 1), [("ptr", 0), ("ptr", 0), ("i64", 7), ("u64", 0),
                                                               ("u64", 0)], shared=96, dependent=dependent,
                               cooperative=cooperative)


@pytest.mark.parametrize("dependent", [False, True])
def test_two_pointers_and_any_positions_land_in_their_slots(driver, dependent):
    k = _packed(dependent)
    k(11, 0xA000, 0xB000)
    k.call_at(12, {0: 0xC000, 1: 0xD000, 3: 5, 4: 6})
    k(13, 0xE000)  # one leading argument: the general path
    assert driver.seen == [((3, 1, 1, 256, 1, 1), 96, 11, [0xA000, 0xB000, 7, 0, 0]),
                           ((3, 1, 1, 256, 1, 1), 96, 12, [0xC000, 0xD000, 7, 5, 6]),
                           ((3, 1, 1, 256, 1, 1), 96, 13, [0xE000, 0xD000, 7, 5, 6])]
    # a dependent launch: one attribute, programmatic stream serialization (6), allowed (1)
    assert driver.ex == ([(1, 6, 1)] * 3 if dependent else [])
    assert driver.funcs == [Fn.ptr] * 3


def test_a_cooperative_launch_packs_the_same_arguments(driver):
    _packed(cooperative=True)(11, 0xA000, 0xB000)
    assert driver.cooperative == 1 and driver.funcs == [Fn.ptr]
    assert driver.seen == [((3, 1, 1, 256, 1, 1), 96, 11, [0xA000, 0xB000, 7, 0, 0])]


def test_a_cooperative_launch_without_a_context_is_retried(driver):
    driver.fail_first = 1
    _packed(cooperative=True)(5, 0x10, 0x20)
    assert driver.binds == 1 and driver.cooperative == 2 and driver.seen[0] == driver.seen[1]
    assert driver.seen[1][3][:2] == [0x10, 0x20]


def test_a_cooperative_launch_too_large_says_so(driver, monkeypatch):
    def refused(func, *a):
        raise DriverError(launch._COOPERATIVE_TOO_LARGE)

    monkeypatch.setattr(launch, "_launchers", lambda: (None, refused, DriverError))
    with pytest.raises(launch.LaunchTooLarge):
        _packed(cooperative=True)(1, 2, 3)


def test_launch_structures_match_cuda_h():
    assert ctypes.sizeof(launch._LaunchConfig) == 56 and launch._LaunchConfig.attrs.offset == 40
    assert ctypes.sizeof(launch._LaunchAttribute) == 72 and launch._LaunchAttribute.value.offset == 8


@pytest.mark.parametrize("call", [lambda k: k(5, 0x10, 0x20), lambda k: k.call_at(5, {0: 0x10, 1: 0x20})])
def test_a_launch_without_a_context_is_retried_with_the_same_arguments(driver, call):
    driver.fail_first = 1
    k = _packed()
    call(k)
    assert driver.binds == 1 and len(driver.seen) == 2 and driver.seen[0] == driver.seen[1]
    assert driver.seen[1][3][:2] == [0x10, 0x20]


def test_a_failed_launch_raises(monkeypatch):
    class Broken(FakeDriver):
        def cuLaunchKernel(self, *a):
            return 700

    monkeypatch.setattr(launch, "_driver", lambda: Broken())
    monkeypatch.setattr(launch, "_launchers", launchers(Broken()))
    with pytest.raises(RuntimeError, match=r"^cuLaunchKernel failed with CUDA error 700$"):
        _packed()(1, 2, 3)
    with pytest.raises(RuntimeError, match=r"^cuLaunchCooperativeKernel failed with CUDA error 700$"):
        _packed(cooperative=True)(1, 2, 3)
    with pytest.raises(RuntimeError, match=r"^cuLaunchKernelEx failed with CUDA error 700$"):
        _packed(dependent=True)(1, 2, 3)
