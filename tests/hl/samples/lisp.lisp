;;; Common Lisp sample
(defpackage :shapes (:use :cl))
(in-package :shapes)

(defclass circle ()
  ((r :initarg :r :accessor r :initform 1.0)))

(defgeneric area (shape))
(defmethod area ((c circle))
  (* pi (r c) (r c)))

(defun sum (xs &optional (acc 0))
  "Sum a list."
  (if (null xs) acc (sum (cdr xs) (+ acc (car xs)))))

(format t "~a ~a~%" (area (make-instance 'circle :r 2)) (sum '(1 2 3)))
#| block comment |#
(let ((x #x1F) (s "str")) (list x s #\a nil t))
