" Vim sample
set nocompatible
set tabstop=4 shiftwidth=4 expandtab
let g:mapleader = ","

function! s:Trim(str) abort
  return substitute(a:str, '^\s*\(.\{-}\)\s*$', '\1', '')
endfunction

augroup sheaf
  autocmd!
  autocmd BufRead,BufNewFile *.md setlocal spell textwidth=80
augroup END

nnoremap <leader>w :w<CR>
if has('nvim')
  echo "neovim" . s:Trim("  x  ")
endif
