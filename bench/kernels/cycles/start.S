/* Entry of the freestanding cycle programs: vectors at the start of the image (each a jump
   to the entry), the entry at +0x80, the stack at the top of RAM, .bss cleared, main()
   called, and its return value stored to the exit device. */
    .section .vectors, "ax"
    .option push
    .option norvc
    .globl __vectors
__vectors:
    .rept 32
    j _start
    .endr
    .option pop

    .section .text.start, "ax"
    .globl _start
_start:
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop
    la sp, __stack_top
    la t0, __bss_start
    la t1, __bss_end
1:  bgeu t0, t1, 2f
    sw zero, 0(t0)
    addi t0, t0, 4
    j 1b
2:  call main
    call bench_exit
3:  j 3b
