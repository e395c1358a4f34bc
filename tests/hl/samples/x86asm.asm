; x86-64 sample
section .data
    msg db "Hello", 10, 0
    len equ $ - msg

section .text
global _start

_start:
    mov rax, 1          ; write
    mov rdi, 1
    lea rsi, [rel msg]
    mov rdx, len
    syscall
.loop:
    dec rcx
    jnz .loop
    xor edi, edi
    mov eax, 60         ; exit
    syscall
