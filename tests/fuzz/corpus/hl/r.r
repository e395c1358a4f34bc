# R sample
library(ggplot2)

#' Roxygen doc
#' @param x a vector
square <- function(x, na.rm = TRUE) {
  if (is.null(x) || length(x) == 0L) {
    return(NA_real_)
  }
  x ^ 2
}

df <- data.frame(a = 1:10, b = rnorm(10, mean = 0, sd = 1.5e-1))
df$c <- ifelse(df$a > 5, "big", 'small')
res <- sapply(seq_len(nrow(df)), function(i) df[i, "b"] * 2)
for (i in 1:3) print(i)
x %>% filter(y != Inf) %in% c(TRUE, FALSE, NULL)
`weird name` <- 0x1F
