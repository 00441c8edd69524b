;;; chinese.el --- the zh locale through eglot: diagnostic, quick fixes, hover  -*- lexical-binding: t; -*-
;; The project's .dir-locals.el (written by the test) sets eglot-workspace-configuration, where an
;; eglot user sets a server's settings.  Reads ERRKNOW_EMACS_SNIPPET, ERRKNOW_E2E_FILE, ERRKNOW_E2E_OUT.

(load (expand-file-name "harness.el" (file-name-directory load-file-name)) nil t)

(defun errknow-chinese-p (text) (string-match-p "\\cc" text))

(errknow-scenario
      (find-file (getenv "ERRKNOW_E2E_FILE"))
      (push (cons 'configuration eglot-workspace-configuration) errknow-seen)
      (errknow-connect)
      ;; The server asks for its settings after it starts: wait for the finding in Chinese.
      (errknow-wait 30 "the diagnostic in Chinese"
                    (lambda () (seq-some (lambda (d) (errknow-chinese-p (alist-get 'text d)))
                                         (errknow-diagnostics))))
      (let ((diagnostic (car (errknow-diagnostics))))
        (push (cons 'diagnostic (alist-get 'text diagnostic)) errknow-seen)
        (goto-char (point-min))
        (forward-line (1- (alist-get 'line diagnostic))))
      (back-to-indentation)
      (let (hover)
        (eglot-hover-eldoc-function (lambda (info &rest _) (setq hover info)))
        (errknow-wait 30 "the hover" (lambda () hover))
        (push (cons 'hover (substring-no-properties hover)) errknow-seen))
      (push (cons 'actions
                  (mapcar (lambda (a) (plist-get a :title))
                          (eglot-code-actions (line-beginning-position) (line-end-position) "quickfix" nil)))
            errknow-seen))
