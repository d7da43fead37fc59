//! What the processor has: the engine's fast copies of its hot loops are compiled for
//! x86-64 features and chosen by these checks, once per call.

/// Whether this processor has what the engine's fast copies are compiled for: `popcnt`,
/// `lzcnt`, BMI1, BMI2 and AVX2 (checked once, then cached by the standard library).
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn fast_cpu() -> bool {
    std::arch::is_x86_feature_detected!("popcnt")
        && std::arch::is_x86_feature_detected!("lzcnt")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("avx2")
}

/// Whether to use `pext`: BMI2, on a processor that runs it in hardware (AMD's before Zen 3
/// microcode it, tens to hundreds of cycles).
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn fast_pext() -> bool {
    static FAST: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *FAST.get_or_init(|| {
        if !std::arch::is_x86_feature_detected!("bmi2") {
            return false;
        }
        let vendor = std::arch::x86_64::__cpuid(0);
        let signature = std::arch::x86_64::__cpuid(1).eax;
        let amd = vendor.ebx == 0x6874_7541 && vendor.edx == 0x6974_6e65; // "Auth" "enti"
        let family = ((signature >> 8) & 0xf) + ((signature >> 20) & 0xff);
        !amd || family >= 0x19
    })
}
