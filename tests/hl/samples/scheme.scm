;; Scheme sample
(define (fact n)
  (if (<= n 1)
      1
      (* n (fact (- n 1)))))

(define-syntax swap!
  (syntax-rules ()
    ((_ a b) (let ((tmp a)) (set! a b) (set! b tmp)))))

(let loop ((i 0) (acc '()))
  (cond ((= i 10) (reverse acc))
        (else (loop (+ i 1) (cons (fact i) acc)))))

(display "hello") (newline)
#| block
   comment |#
(vector 1 2.5 #t #f #\a "s")
